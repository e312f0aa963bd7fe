//! A module on the acting floor, built on the ground.
pub struct Queue(pub crate::ground::Base);
