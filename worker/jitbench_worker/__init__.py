"""jitbench's Python worker: runs one measurement in a fresh process and reports
it on an inherited file descriptor (docs/protocol.md). Importing this package
must stay cheap: nothing here may import a framework at module level."""

PROTOCOL_VERSION = 1
