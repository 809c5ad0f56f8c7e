"""The one door for what jitbench's Python code writes, creates, renames or
removes below a directory it owns (an environment cache, a saved pytest
session's .jitbench/): the same rule as the binary's util/fs.h. The path
below the (trusted, user-named) root is walked one component at a time with
O_NOFOLLOW, so a symbolic link planted below the root is refused (LinkRefused),
never followed; a file is written to a temporary beside it and renamed.

This file is kept byte for byte as python/jitbench/_door.py (the API and the
pytest plugin cannot import the worker package); tests/test_architecture.py
checks that the two are the same and that no other write bypasses them."""

import errno
import os
import stat


class LinkRefused(OSError):
    """A component below the root is a symbolic link (or not a directory): nothing was done through it."""


def _refuse(path, err):
    if err in (errno.ELOOP, errno.ENOTDIR, errno.EXDEV):
        raise LinkRefused(errno.ELOOP, f"{path}: a component is a symbolic link or not a directory; jitbench never "
                                       "writes through a link: remove it, or give another directory")
    raise OSError(err, f"{path}: {os.strerror(err)}")


def _parts(rel):
    parts = [p for p in str(rel).split("/") if p not in ("", ".")]
    if ".." in parts or str(rel).startswith("/"):
        raise ValueError(f"{rel}: not a path below the root")
    return parts


def open_dir(root, rel=".", create=False, mode=0o755):
    """A descriptor on the directory root/rel, walked without following a link
    below root; create: missing directories are made with mode."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    at = str(root)
    try:
        for part in _parts(rel):
            at = os.path.join(at, part)
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, mode, dir_fd=fd)
                except FileExistsError:
                    pass
                try:
                    nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                except OSError as exc:
                    _refuse(at, exc.errno)
            except OSError as exc:
                _refuse(at, exc.errno)
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def _parent(root, rel, create):
    parts = _parts(rel)
    if not parts:
        raise ValueError(f"{rel}: names the root itself")
    return open_dir(root, "/".join(parts[:-1]), create=create), parts[-1]


def make_dir(root, rel, mode=0o755):
    """root/rel and the directories above it (below root), made where missing; rel gets mode."""
    fd = open_dir(root, rel, create=True, mode=mode)
    try:
        os.chmod(fd, mode)
    finally:
        os.close(fd)


def write_file(root, rel, data, mode=0o644, durable=True):
    """root/rel written whole (a temporary beside it, renamed): a link at rel is replaced, never followed.
    durable=False: not flushed to disk before the rename (a scratch copy, remade if lost)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    dfd, name = _parent(root, rel, create=True)
    tmp = f".{name}.tmp"
    try:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dfd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise
    finally:
        os.close(dfd)


def append_line(root, rel, line):
    """One line appended to root/rel (made when missing), in one write: never replaced, never through a link."""
    dfd, name = _parent(root, rel, create=False)
    try:
        try:
            fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                         dir_fd=dfd)
        except OSError as exc:
            _refuse(os.path.join(str(root), str(rel)), exc.errno)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def open_lock(root, rel):
    """A descriptor on root/rel for flock (made when missing), never through a link."""
    dfd, name = _parent(root, rel, create=False)
    try:
        return os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    except OSError as exc:
        _refuse(os.path.join(str(root), str(rel)), exc.errno)
    finally:
        os.close(dfd)


def make_root(path):
    """The root itself, a path the user named: made with its parents as that path says (its links are the user's)."""
    os.makedirs(path, exist_ok=True)


def remove(root, rel):
    """root/rel removed: a file, a link (itself) or a directory with everything below it, no link followed.
    Absent: nothing to do."""
    try:
        dfd, name = _parent(root, rel, create=False)
    except FileNotFoundError:
        return
    try:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            _remove_tree_at(dfd, name)
        else:
            os.unlink(name, dir_fd=dfd)
    finally:
        os.close(dfd)


def _remove_tree_at(dfd, name, depth=0):
    """The directory name in dfd with everything below it, by descriptors: a link inside is removed, never followed."""
    if depth > 4096:
        raise OSError(errno.ELOOP, f"{name}: a tree deeper than jitbench makes")
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
    try:
        with os.scandir(fd) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        for child, is_dir in entries:
            if is_dir:
                _remove_tree_at(fd, child, depth + 1)
            else:
                os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dfd)


def rename(root, src, dst):
    """root/src moved to root/dst, both walked without following a link."""
    sfd, sname = _parent(root, src, create=False)
    try:
        dfd, dname = _parent(root, dst, create=True)
        try:
            os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
        finally:
            os.close(dfd)
    finally:
        os.close(sfd)


def is_link(root, rel):
    """Whether root/rel itself is a symbolic link (its parents walked without following one)."""
    try:
        dfd, name = _parent(root, rel, create=False)
    except FileNotFoundError:
        return False
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False
    finally:
        os.close(dfd)
