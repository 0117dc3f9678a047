extension UnsafeMutablePointer {
    /// New memory holding `value`, owned by the caller (a sink class that reaches its state
    /// through a pointer, so a push per NAL unit costs no dynamic exclusivity check, as a stored
    /// `var` of a class would); give it back with ``freeOwned()``.
    static func owning(_ value: Pointee) -> UnsafeMutablePointer<Pointee> {
        let pointer = UnsafeMutablePointer<Pointee>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    /// Ends the value made by ``owning(_:)`` and frees its memory.
    func freeOwned() {
        deinitialize(count: 1)
        deallocate()
    }
}
