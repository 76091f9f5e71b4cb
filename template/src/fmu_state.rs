//! FMU states as the importer holds them, for both FMI versions.
//!
//! `fmi2FMUstate` and `fmi3FMUState` are both an opaque `void*` owned by the
//! FMU: here a boxed core [`Snapshot`] with a tag that catches foreign pointers
//! before their contents are trusted. The six state functions of each version
//! (get, set, free, serialized size, serialize, deserialize) differ only in
//! their names and status type, so their bodies are here, once, and each
//! shell calls them inside its entry helper.

use crate::shell::{out, slice, slice_mut, Component};
use lcsfmu::instance::snapshot::Snapshot;
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{FmiError, FmiResult};
use std::ffi::c_void;

/// An FMU state pointer of either version.
pub type StatePtr = *mut c_void;

/// An FMU state as handed to the importer.
struct StateBox {
    tag: u64,
    snapshot: Snapshot,
}

const STATE_TAG: u64 = 0x4C43_5346_4D55_5354; // "LCSFMUST"

/// # Safety
/// `s` is NULL or a pointer this FMU returned as an FMU state and did not free.
unsafe fn state_ref<'a>(s: StatePtr) -> FmiResult<&'a mut StateBox> {
    let b = (s as *mut StateBox)
        .as_mut()
        .ok_or_else(|| FmiError::error("the FMU state is NULL"))?;
    if b.tag != STATE_TAG {
        return Err(FmiError::error("the FMU state was not created by this FMU"));
    }
    Ok(b)
}

/// Stores `snapshot` in `*slot`, reusing the state already there if any.
///
/// # Safety
/// `slot` is valid for reads and writes; `*slot` is NULL or one of this FMU's states.
unsafe fn store(slot: *mut StatePtr, snapshot: Snapshot) -> FmiResult<()> {
    let slot = out(slot, "the FMUstate argument")?;
    if slot.is_null() {
        *slot = Box::into_raw(Box::new(StateBox {
            tag: STATE_TAG,
            snapshot,
        })) as StatePtr;
    } else {
        state_ref(*slot)?.snapshot = snapshot;
    }
    Ok(())
}

/// `GetFMUstate`.
///
/// # Safety
/// `state` points to NULL or to a state of this FMU.
pub unsafe fn get(comp: &mut Component, state: *mut StatePtr) -> FmiResult<()> {
    comp.instance.check(Call::FmuState)?;
    store(state, comp.instance.snapshot())
}

/// `SetFMUstate`.
///
/// # Safety
/// `state` is one of this FMU's states (checked by its tag).
pub unsafe fn set(comp: &mut Component, state: StatePtr) -> FmiResult<()> {
    let b = state_ref(state)?;
    comp.instance.restore(&b.snapshot)
}

/// `FreeFMUstate`: frees `*state` and sets it to NULL; NULL is fine.
///
/// # Safety
/// `state` points to NULL or to a state of this FMU, freed once.
pub unsafe fn free(comp: &mut Component, state: *mut StatePtr) -> FmiResult<()> {
    comp.instance.check(Call::FmuState)?;
    let Some(slot) = state.as_mut() else {
        return Ok(());
    };
    if slot.is_null() {
        return Ok(());
    }
    state_ref(*slot)?;
    drop(Box::from_raw(*slot as *mut StateBox));
    *slot = std::ptr::null_mut();
    Ok(())
}

/// `SerializedFMUstateSize`.
///
/// # Safety
/// As for [`set`]; `size` is writable.
pub unsafe fn serialized_size(
    comp: &mut Component,
    state: StatePtr,
    size: *mut usize,
) -> FmiResult<()> {
    comp.instance.check(Call::FmuState)?;
    *out(size, "size")? = comp.instance.serialize(&state_ref(state)?.snapshot).len();
    Ok(())
}

/// `SerializeFMUstate` into `bytes` (room for `size` bytes).
///
/// # Safety
/// As for [`set`]; `bytes` has room for `size` bytes.
pub unsafe fn serialize(
    comp: &mut Component,
    state: StatePtr,
    bytes: *mut u8,
    size: usize,
) -> FmiResult<()> {
    comp.instance.check(Call::FmuState)?;
    let data = comp.instance.serialize(&state_ref(state)?.snapshot);
    if data.len() > size {
        return Err(FmiError::error(format!(
            "buffer of {size} bytes is too small for the state ({} bytes)",
            data.len()
        )));
    }
    slice_mut(bytes, data.len(), "serializedState")?.copy_from_slice(&data);
    Ok(())
}

/// `DeSerializeFMUstate` of `size` bytes into `*state`.
///
/// # Safety
/// `bytes` holds `size` bytes; `state` points to NULL or a state of this FMU.
pub unsafe fn deserialize(
    comp: &mut Component,
    bytes: *const u8,
    size: usize,
    state: *mut StatePtr,
) -> FmiResult<()> {
    let data = slice(bytes, size, "serializedState")?;
    let snapshot = comp.instance.deserialize(data)?;
    store(state, snapshot)
}
