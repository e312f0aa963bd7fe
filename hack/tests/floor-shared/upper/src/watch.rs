//! On the watching floor: it may use the ground, not the queue above it.
pub struct Watch(pub crate::ground::Base);
pub fn queue() -> crate::queue::Queue {
    crate::queue::Queue(crate::ground::Base)
}
