"""Which files of the case's compile cache a worker process read and wrote,
seen by the kernel (Linux inotify), not by the framework: independent evidence
for a cache hit (an existing entry read, nothing written) or a miss (an entry
written). Works for every framework, including those that report no cache
events of their own (TensorFlow's persistent XLA cache).

Every directory under the cache dir at start() is watched; files in
directories created later show up as the creation of that directory."""

import ctypes
import ctypes.util
import os
import struct

_IN_ACCESS = 0x001
_IN_MODIFY = 0x002
_IN_CLOSE_WRITE = 0x008
_IN_OPEN = 0x020
_IN_CREATE = 0x100
_IN_Q_OVERFLOW = 0x4000
_IN_ISDIR = 0x40000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_MASK = _IN_ACCESS | _IN_MODIFY | _IN_CLOSE_WRITE | _IN_OPEN | _IN_CREATE
_MAX_WATCHES = 4096
_EVENT = struct.Struct("iIII")


class CacheWatch:
    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
        self.fd = -1
        self.dirs = {}
        self.error = None
        self.read_files, self.written_files, self.created = set(), set(), set()
        self.overflowed = False

    def start(self):
        if not self.cache_dir or not os.path.isdir(self.cache_dir):
            self.error = "no cache directory"
            return self
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            self.fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            if self.fd < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1")
            for root, subdirs, _ in os.walk(self.cache_dir):
                if len(self.dirs) >= _MAX_WATCHES:
                    break
                wd = libc.inotify_add_watch(self.fd, root.encode(), _MASK)
                if wd >= 0:
                    self.dirs[wd] = root
        except (OSError, AttributeError) as exc:
            self.error = f"inotify unavailable: {exc}"
        return self

    def drain(self):
        """Reads the events queued so far (call after the measured calls)."""
        if self.fd < 0:
            return
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                return
            off = 0
            while off + _EVENT.size <= len(buf):
                wd, mask, _, length = _EVENT.unpack_from(buf, off)
                name = buf[off + _EVENT.size: off + _EVENT.size + length].split(b"\0", 1)[0].decode(errors="replace")
                off += _EVENT.size + length
                path = os.path.join(self.dirs.get(wd, "?"), name) if name else self.dirs.get(wd, "?")
                if mask & _IN_Q_OVERFLOW:
                    self.overflowed = True  # events were dropped: the counts are incomplete
                if mask & _IN_ISDIR:
                    if mask & _IN_CREATE:
                        self.created.add(path)
                    continue
                if mask & _IN_ACCESS:
                    self.read_files.add(path)
                if mask & (_IN_CLOSE_WRITE | _IN_MODIFY):
                    self.written_files.add(path)
                if mask & _IN_CREATE:
                    self.created.add(path)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def report(self):
        if self.error:
            return {"available": False, "note": self.error}
        if self.overflowed:
            return {"available": False, "note": "the kernel's event queue overflowed: some file events were lost"}
        read_only = self.read_files - self.written_files - self.created
        return {"available": True, "source": "Linux inotify on the case's cache directory",
                "entries_read": len(read_only), "entries_written": len(self.written_files | self.created),
                "directories_watched": len(self.dirs)}
