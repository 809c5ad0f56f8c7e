"""`jitbench report DIR`: one self-contained HTML page (figures as inline SVG
made with matplotlib, no scripts, no network) and a Markdown summary, built
from a validated jitbench output directory."""
