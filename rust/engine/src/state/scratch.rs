//! The process's private scratch folder, where RocksDB working copies live.
//!
//! A working copy holds state values (its SST files are hard links to the
//! checkpoint's snapshots), so it must be no more readable than the
//! checkpoint: the folder is created `0700` under the temp folder with a
//! random name (another user can neither read it nor create it first).
//! The process holds an exclusive lock on its `.owner` file for as long as
//! it lives; the kernel releases it when the process ends, killed or not,
//! so a folder whose `.owner` can be locked belongs to a process that is
//! gone, and the next process to start a RocksDB store removes it.

use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The prefix of every scratch folder's name.
const PREFIX: &str = "sparklet-rocksdb-";
/// The lock file its owner holds.
const OWNER: &str = ".owner";

/// The folder and its owner's lock, for the process's lifetime.
static SCRATCH: OnceLock<std::result::Result<(PathBuf, File), String>> = OnceLock::new();

/// This process's private folder under `base` (the temp folder), made on
/// first use, after removing the folders of this user's processes that
/// are gone.
pub fn process_dir() -> Result<&'static Path> {
    let made = SCRATCH.get_or_init(|| create(&std::env::temp_dir()).map_err(|e| e.to_string()));
    match made {
        Ok((dir, _)) => Ok(dir),
        Err(e) => Err(Error::Internal(format!(
            "cannot make a private folder for RocksDB working copies: {e}"
        ))),
    }
}

fn create(base: &Path) -> Result<(PathBuf, File)> {
    let dir = base.join(format!("{PREFIX}{}", uuid::Uuid::new_v4().simple()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| Error::io(dir.display().to_string(), e))?;
    let owner = dir.join(OWNER);
    let file = File::create(&owner).map_err(|e| Error::io(owner.display().to_string(), e))?;
    file.try_lock()
        .map_err(|e| Error::Internal(format!("cannot lock {}: {e}", owner.display())))?;
    let uid = std::fs::metadata(&dir)
        .map_err(|e| Error::io(dir.display().to_string(), e))?
        .uid();
    remove_abandoned(base, &dir, uid);
    Ok((dir, file))
}

/// Remove the scratch folders under `base` of this user's processes that
/// are gone (their `.owner` can be locked). Best effort: what cannot be
/// removed now is tried by the next process.
pub fn remove_abandoned(base: &Path, ours: &Path, uid: u32) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let mine = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(PREFIX));
        let owned = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if !mine || !owned || path == ours {
            continue;
        }
        // no .owner yet: a process making it this instant; left alone
        let Ok(lock) = File::open(path.join(OWNER)) else {
            continue;
        };
        if lock.try_lock().is_ok() {
            match std::fs::remove_dir_all(&path) {
                Ok(()) => log::info!("removed {}, left by a process that ended", path.display()),
                Err(e) => log::debug!("cannot remove {}: {e}", path.display()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_folder_is_private_and_a_gone_process_folder_is_removed(
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let base = std::env::temp_dir().join(format!("sparklet-scratch-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&base)?;
        let (first, lock) = create(&base)?;
        let mode = std::fs::metadata(&first)?.permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // held: a second process leaves it alone
        let (second, _held) = create(&base)?;
        assert!(first.exists() && second.exists());
        // its owner gone: the next process removes it
        drop(lock);
        let (_third, _held3) = create(&base)?;
        assert!(!first.exists() && second.exists());
        let _ = std::fs::remove_dir_all(&base);
        Ok(())
    }
}
