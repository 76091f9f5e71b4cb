//! Checks of the band solver (filled in below).
