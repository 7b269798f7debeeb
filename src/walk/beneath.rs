//! Opening a workspace file beneath the root's directory handle, never through a
//! symbolic link, so a directory swapped for a link to elsewhere between a check and
//! the open cannot lead a read out of the workspace.
//!
//! Checking a path (`canonicalize`, `lstat`) and then opening it by name leaves a gap:
//! another process can exchange a directory inside the root with a symbolic link to an
//! outside directory (`renameat2(RENAME_EXCHANGE)`) after the check, and the open then
//! follows the link. Here the path is resolved by the kernel from a handle on the root,
//! refusing every link on the way:
//!
//! - Linux: `openat2(root, rel, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` (5.6 and later);
//! - where `openat2` is missing or refused (`ENOSYS`, `EPERM` from a seccomp filter,
//!   `EINVAL`/`E2BIG` from a kernel that does not know the flags), and on other Unix
//!   systems: one `openat(dir, name, O_DIRECTORY | O_NOFOLLOW)` per directory, then the
//!   file with `O_NOFOLLOW | O_NONBLOCK`;
//! - elsewhere: a plain open of `root/rel` (the callers' lexical checks still apply).
//!
//! Does no reading policy of its own beyond [`read_regular_beneath`]'s (regular files
//! only, a size cap), and never follows a link, even one that stays inside the root.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Component, Path};

/// Why [`open_beneath`] refused a path without opening anything. Carried inside an
/// [`io::Error`] of kind `InvalidInput`; [`refusal`] gets it back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BeneathError {
    /// A component of the path (a directory or the file itself) is a symbolic link.
    #[error("{0} goes through a symbolic link below the workspace root, which is not followed")]
    SymbolicLink(String),
    /// The path is empty, absolute or has a `..` component.
    #[error(
        "{0:?} is not a relative path below the workspace root (empty, absolute or with `..`)"
    )]
    NotBeneath(String),
}

/// The refusal inside `err`, when [`open_beneath`] refused the path (as opposed to the
/// operating system failing the open: not found, permissions, I/O).
pub fn refusal(err: &io::Error) -> Option<&BeneathError> {
    err.get_ref()?.downcast_ref::<BeneathError>()
}

fn refuse(e: BeneathError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e)
}

/// The normal components of `rel`, `.` dropped.
///
/// Errors: [`BeneathError::NotBeneath`] for an empty path, a root, a prefix or `..`.
fn components(rel: &Path) -> io::Result<Vec<&OsStr>> {
    let mut out = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(BeneathError::NotBeneath(super::path_text::encode(
                    rel,
                ))))
            }
        }
    }
    if out.is_empty() {
        return Err(refuse(BeneathError::NotBeneath(String::new())));
    }
    Ok(out)
}

/// Opens the file `rel` (relative, no `..`) under the directory `root` read-only and
/// non-blocking, resolving `rel` beneath a handle on `root` and following no symbolic
/// link in any of its components. `root` itself is opened as given (links in it are
/// the user's choice of root). What is opened may be any kind of file (a directory, a
/// FIFO: opening one does not block); see [`read_regular_beneath`] for the checks.
///
/// Errors: `InvalidInput` carrying a [`BeneathError`] (see [`refusal`]) for a path that
/// is not beneath the root or that meets a symbolic link; otherwise the open's error
/// (`NotFound`, permissions, `ENOTDIR` when a component is a file).
pub fn open_beneath(root: &Path, rel: &Path) -> io::Result<File> {
    let parts = components(rel)?;
    imp::open(root, rel, &parts)
}

#[cfg(unix)]
mod imp {
    use std::ffi::{CString, OsStr};
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::Path;

    use super::{refuse, BeneathError};

    fn cstr(bytes: &[u8]) -> io::Result<CString> {
        CString::new(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
    }

    /// The root directory, opened as a handle to resolve beneath.
    fn open_root(root: &Path) -> io::Result<OwnedFd> {
        let c = cstr(root.as_os_str().as_bytes())?;
        // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by open(2) and is owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// True when `name` in the directory `dir` is a symbolic link (lstat-like).
    fn is_link_at(dir: &OwnedFd, name: &CString) -> bool {
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `dir` is an open descriptor, `name` a valid C string, `st` writable.
        let r = unsafe {
            libc::fstatat(
                dir.as_raw_fd(),
                name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        r == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFLNK
    }

    /// `openat(dir, name, flags)`; a symbolic link met there becomes a refusal naming
    /// `shown` (the path up to it, in the index's text form).
    fn open_at(
        dir: &OwnedFd,
        name: &OsStr,
        flags: libc::c_int,
        shown: &Path,
    ) -> io::Result<OwnedFd> {
        let c = cstr(name.as_bytes())?;
        // SAFETY: `dir` is an open descriptor and `c` a valid C string.
        let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags) };
        if fd < 0 {
            let err = io::Error::last_os_error();
            // O_NOFOLLOW on a link: ELOOP on Linux, EMLINK on FreeBSD; with O_DIRECTORY
            // some systems say ENOTDIR instead.
            if matches!(
                err.raw_os_error(),
                Some(libc::ELOOP | libc::EMLINK | libc::ENOTDIR)
            ) && is_link_at(dir, &c)
            {
                return Err(refuse(BeneathError::SymbolicLink(
                    crate::walk::path_text::encode(shown),
                )));
            }
            return Err(err);
        }
        // SAFETY: `fd` was just returned by openat(2) and is owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// The portable way: one directory at a time, never following a link.
    pub(super) fn open_by_components(root: &Path, parts: &[&OsStr]) -> io::Result<File> {
        let mut dir = open_root(root)?;
        let mut shown = std::path::PathBuf::new();
        let (last, dirs) = parts
            .split_last()
            .ok_or_else(|| refuse(BeneathError::NotBeneath(String::new())))?;
        for name in dirs {
            shown.push(name);
            dir = open_at(
                &dir,
                name,
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                &shown,
            )?;
        }
        shown.push(last);
        let fd = open_at(
            &dir,
            last,
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
            &shown,
        )?;
        Ok(File::from(fd))
    }

    /// 0: not tried yet; 1: has worked (a later refusal falls back for that call only);
    /// 2: refused before it ever worked, so every call takes the component walk.
    #[cfg(target_os = "linux")]
    static OPENAT2: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

    #[cfg(target_os = "linux")]
    pub(super) fn open(root: &Path, rel: &Path, parts: &[&OsStr]) -> io::Result<File> {
        use std::sync::atomic::Ordering;
        if OPENAT2.load(Ordering::Relaxed) == 2 {
            return open_by_components(root, parts);
        }
        let dir = open_root(root)?;
        let joined = parts
            .iter()
            .map(|p| p.as_bytes())
            .collect::<Vec<_>>()
            .join(&b'/');
        let c = cstr(&joined)?;
        // SAFETY: an all-zero `open_how` is valid (the struct is non-exhaustive, so it
        // is built from zeroes and its public fields set).
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC) as u64;
        how.mode = 0;
        how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS;
        // SAFETY: `dir` is open, `c` a valid C string, `how` lives across the call and
        // its size is passed with it.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                c.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            OPENAT2.store(1, Ordering::Relaxed);
            // SAFETY: `fd` was just returned by openat2(2) and is owned by nobody else.
            return Ok(File::from(unsafe {
                OwnedFd::from_raw_fd(fd as libc::c_int)
            }));
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            // Not in this kernel, or filtered by a seccomp policy (containers): the
            // component walk gives the same guarantee.
            Some(libc::ENOSYS | libc::EPERM | libc::EINVAL | libc::E2BIG) => {
                if OPENAT2.load(Ordering::Relaxed) == 0 {
                    OPENAT2.store(2, Ordering::Relaxed);
                }
                open_by_components(root, parts)
            }
            Some(libc::ELOOP) => Err(refuse(BeneathError::SymbolicLink(
                crate::walk::path_text::encode(rel),
            ))),
            Some(libc::EXDEV) => Err(refuse(BeneathError::NotBeneath(
                crate::walk::path_text::encode(rel),
            ))),
            _ => Err(err),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn open(root: &Path, _rel: &Path, parts: &[&OsStr]) -> io::Result<File> {
        open_by_components(root, parts)
    }
}

#[cfg(not(unix))]
mod imp {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::path::Path;

    pub(super) fn open(root: &Path, _rel: &Path, parts: &[&OsStr]) -> io::Result<File> {
        let mut p = root.to_path_buf();
        p.extend(parts);
        File::open(p)
    }
}

/// Reads the regular file `rel` under `root`, at most `max` bytes, opened by
/// [`open_beneath`] (no symbolic link anywhere below the root, non-blocking), then
/// checked as [`super::read_regular`] does: whatever is not a regular file once open (a
/// directory, FIFO, socket, device) is refused with `InvalidInput` at once.
///
/// Errors: the open's or read's (`NotFound` when it vanished); `InvalidInput` for a
/// refused path (see [`refusal`]), a special file, or one larger than `max` bytes.
pub fn read_regular_beneath(root: &Path, rel: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_beneath(root, rel)?;
    super::read_open(file, max)
}

/// Reads the file at `abs`, which must lie under `root`, as [`read_regular_beneath`]
/// does with its path relative to `root` (for a path the walk or the tools' sandbox
/// produced as absolute).
///
/// Errors: `InvalidInput` carrying [`BeneathError::NotBeneath`] when `abs` is not under
/// `root`; otherwise as [`read_regular_beneath`].
pub fn read_regular_under(root: &Path, abs: &Path, max: u64) -> io::Result<Vec<u8>> {
    let rel = abs
        .strip_prefix(root)
        .map_err(|_| refuse(BeneathError::NotBeneath(super::path_text::encode(abs))))?;
    read_regular_beneath(root, rel, max)
}

/// Reads the workspace file whose path the index stores as `text` (the text form of
/// [`super::path_text`]) as [`read_regular_beneath`] does.
///
/// Errors: `InvalidInput` for a text that is not a canonical path text (the index never
/// stores one); otherwise as [`read_regular_beneath`].
pub fn read_stored(root: &Path, text: &str, max: u64) -> io::Result<Vec<u8>> {
    let rel = super::path_text::decode(text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    read_regular_beneath(root, &rel, max)
}

/// [`read_stored`] as UTF-8 text.
///
/// Errors: as [`read_stored`]; `InvalidData` when the file is not UTF-8.
pub fn read_stored_text(root: &Path, text: &str, max: u64) -> io::Result<String> {
    String::from_utf8(read_stored(root, text, max)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// For race tests: a thread that exchanges the entries `a` and `b` (absolute paths)
/// with `renameat2(RENAME_EXCHANGE)` as fast as it can until `stop` is set; it returns
/// how many exchanges it made.
#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
pub(crate) fn swap_until(
    a: &Path,
    b: &Path,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    use std::sync::atomic::Ordering;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let (a, b) = (c(a), c(b));
    let stop = std::sync::Arc::clone(stop);
    std::thread::spawn(move || {
        let mut swaps = 0u64;
        while !stop.load(Ordering::Relaxed) {
            // SAFETY: valid C strings; AT_FDCWD with absolute paths.
            let r = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(r, 0, "{}", io::Error::last_os_error());
            swaps += 1;
        }
        swaps
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/deep/a.py"), "x = 1\n").unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/a.py"), "OUTSIDE\n").unwrap();
        (dir, root)
    }

    fn refused(r: io::Result<Vec<u8>>) -> BeneathError {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        refusal(&e)
            .cloned()
            .unwrap_or_else(|| panic!("not a refusal: {e}"))
    }

    #[test]
    fn a_regular_file_is_read_both_ways() {
        let (_d, root) = setup();
        let rel = Path::new("src/deep/a.py");
        assert_eq!(read_regular_beneath(&root, rel, 100).unwrap(), b"x = 1\n");
        assert_eq!(
            read_regular_beneath(&root, Path::new("./src/deep/a.py"), 100).unwrap(),
            b"x = 1\n"
        );
        let mut f = imp::open_by_components(&root, &components(rel).unwrap()).unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut f, &mut s).unwrap();
        assert_eq!(s, "x = 1\n");
        let e = read_regular_beneath(&root, Path::new("src/none.py"), 100).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn links_in_a_directory_or_the_file_are_refused() {
        let (d, root) = setup();
        std::os::unix::fs::symlink(d.path().join("outside"), root.join("src/out")).unwrap();
        // A link to a place inside the root is refused too: no link is followed.
        std::os::unix::fs::symlink(root.join("src/deep"), root.join("src/in")).unwrap();
        std::os::unix::fs::symlink(root.join("src/deep/a.py"), root.join("src/link.py")).unwrap();
        // (path, the part the component walk names: up to the link)
        for (rel, link) in [
            ("src/out/a.py", "src/out"),
            ("src/in/a.py", "src/in"),
            ("src/link.py", "src/link.py"),
        ] {
            assert_eq!(
                refused(read_regular_beneath(&root, Path::new(rel), 100)),
                BeneathError::SymbolicLink(rel.into()),
                "{rel}"
            );
            let parts = components(Path::new(rel)).unwrap();
            let e = imp::open_by_components(&root, &parts).unwrap_err();
            assert_eq!(
                refusal(&e),
                Some(&BeneathError::SymbolicLink(link.into())),
                "{rel}: {e}"
            );
        }
    }

    /// A thread exchanges a directory inside the root with a link to an outside
    /// directory holding a file of the same name, as fast as it can, while at least
    /// 2,000 reads each way go through the directory: none may return the outside file.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_directory_swapped_for_a_link_never_leads_out() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (d, root) = setup();
        std::os::unix::fs::symlink(d.path().join("outside"), root.join("src/swap")).unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let swapper = swap_until(&root.join("src/deep"), &root.join("src/swap"), &stop);
        let rel = Path::new("src/deep/a.py");
        let parts = components(rel).unwrap();
        let (mut inside, mut outside, mut refused_links, mut other) = (0, 0, 0, 0);
        // At least 4,000 reads, and on until one has met the link: on a loaded machine
        // the swapper can run only between reads for a while (a CI run once made 5,591
        // swaps that 4,000 reads never saw). A minute bounds it.
        let started = std::time::Instant::now();
        let mut reads = 0;
        while reads < 4000
            || (refused_links == 0 && started.elapsed() < std::time::Duration::from_secs(60))
        {
            let got = if reads % 2 == 0 {
                read_regular_beneath(&root, rel, 100)
            } else {
                imp::open_by_components(&root, &parts).and_then(|f| crate::walk::read_open(f, 100))
            };
            match got {
                Ok(b) if b == b"x = 1\n" => inside += 1,
                Ok(_) => outside += 1,
                Err(e) if refusal(&e).is_some() => refused_links += 1,
                Err(_) => other += 1,
            }
            reads += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        assert_eq!(
            outside, 0,
            "inside {inside}, links refused {refused_links}, other {other}"
        );
        assert!(
            swaps > 0 && refused_links > 0,
            "the race ran: {swaps} swaps, {refused_links} refusals"
        );
        assert_eq!(inside + refused_links + other, reads);
    }

    #[test]
    fn dot_dot_absolute_and_empty_paths_are_refused() {
        let (_d, root) = setup();
        for rel in [
            "../outside/a.py",
            "src/../../outside/a.py",
            "/etc/passwd",
            "",
            ".",
        ] {
            assert!(
                matches!(
                    refused(read_regular_beneath(&root, Path::new(rel), 100)),
                    BeneathError::NotBeneath(_)
                ),
                "{rel}"
            );
        }
    }

    #[test]
    fn a_fifo_or_a_directory_is_refused_at_once() {
        let (_d, root) = setup();
        let fifo = root.join("src/pipe.py");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = read_regular_beneath(&root, Path::new("src/pipe.py"), 100).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(refusal(&e).is_none());
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read_regular_beneath(&root, Path::new("src/deep"), 100).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
