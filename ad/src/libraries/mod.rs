//! What the engine knows about particular libraries' data: Rust's byte
//! strings (`byte_data`), hashbrown's tables behind `HashMap`
//! (`swiss_tables`), and growing containers' buffers (`containers`:
//! `std::vector`, `VecDeque`).
//! The generic analyses above ask these recognisers, only through the
//! questions re-exported here (the one interface); nothing here asks them.
//! Uses the layers below.

mod byte_data;
mod containers;
mod swiss_tables;

pub(crate) use byte_data::{copies_byte_slice, copies_rust_bytes, points_to_bytes};
pub(crate) use containers::grown_container_elem;
pub(crate) use swiss_tables::{
    addresses_slot, copy_layout as table_copy_layout, elem_at as table_elem_at, from_posix_memalign,
    holds_non_integer_fields, moves_parts_of_slots,
};
