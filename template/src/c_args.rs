//! Arguments from C: strings, arrays and out-parameters turned into Rust
//! values, with NULL where the importer announced data refused as an error
//! naming the argument instead of being read.

use lcsfmu::instance::{FmiError, FmiResult};
use std::ffi::{c_char, CStr, CString};

/// Reads an optional C string (NULL gives None; invalid UTF-8 is replaced).
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub unsafe fn c_str(s: *const c_char) -> Option<String> {
    (!s.is_null()).then(|| CStr::from_ptr(s).to_string_lossy().into_owned())
}

/// The instance name an importer passed (NULL: "unnamed"), as a C string.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub unsafe fn instance_name(s: *const c_char) -> CString {
    let name = c_str(s).unwrap_or_else(|| "unnamed".into());
    CString::new(name.replace('\0', "")).expect("NUL bytes were removed")
}

/// Builds a slice from a C array; NULL is fine when `n == 0`.
///
/// # Safety
/// When `n > 0` and `p` is not NULL, `p` points to `n` valid elements.
pub unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> FmiResult<&'a [T]> {
    match (n, p.is_null()) {
        (0, _) => Ok(&[]),
        (_, true) => Err(FmiError::error(format!(
            "{what} is NULL but {n} values were announced"
        ))),
        _ => Ok(std::slice::from_raw_parts(p, n)),
    }
}

/// Mutable counterpart of [`slice`].
///
/// # Safety
/// As for [`slice`], and the memory is writable and not aliased.
pub unsafe fn slice_mut<'a, T>(p: *mut T, n: usize, what: &str) -> FmiResult<&'a mut [T]> {
    match (n, p.is_null()) {
        (0, _) => Ok(&mut []),
        (_, true) => Err(FmiError::error(format!(
            "{what} is NULL but {n} values were announced"
        ))),
        _ => Ok(std::slice::from_raw_parts_mut(p, n)),
    }
}

/// A writable out-parameter, or an error naming it.
///
/// # Safety
/// `p` is NULL or valid for writes.
#[inline]
pub unsafe fn out<'a, T>(p: *mut T, what: &str) -> FmiResult<&'a mut T> {
    match p.as_mut() {
        Some(r) => Ok(r),
        None => Err(null_out(what)),
    }
}

/// The error of a NULL out-parameter, out of line: `fmi3DoStep` checks four
/// of them on every step, and the common path should be four tests only.
#[cold]
#[inline(never)]
fn null_out(what: &str) -> FmiError {
    FmiError::error(format!("{what} is NULL"))
}
