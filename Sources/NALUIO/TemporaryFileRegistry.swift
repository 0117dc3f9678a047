#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files being written, kept where a signal handler can reach them without
/// allocating: ``removeAll()`` only walks memory that is already there and calls `unlink`, which
/// is async-signal-safe.
///
/// There is no fixed limit (issue 40 item 16: a cut list of 300 ranges has 300 pieces on disk at
/// once): slots come in blocks of ``blockCapacity``, linked one after the other. A block is
/// allocated and filled before it is linked (outside any handler), and never freed, so the
/// handler only ever follows pointers to complete blocks. Each slot keeps a buffer of its own for
/// the path and reuses it for the next path it lists, so memory follows the most paths listed at
/// once, not how many were ever listed.
public enum TemporaryFileRegistry {
    /// Slots per block.
    static let blockCapacity = 64

    /// One listed path: `published` is what the handler unlinks (`nil` while the slot is free);
    /// it is set only once `buffer` holds the path.
    private struct Slot {
        var published: UnsafeMutablePointer<CChar>?
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
    }

    /// ``blockCapacity`` slots and the next block.
    private struct Block {
        let slots: UnsafeMutablePointer<Slot>
        var next: UnsafeMutablePointer<Block>?

        static func make() -> UnsafeMutablePointer<Block> {
            let slots = UnsafeMutablePointer<Slot>.allocate(capacity: TemporaryFileRegistry.blockCapacity)
            slots.initialize(repeating: Slot(), count: TemporaryFileRegistry.blockCapacity)
            let block = UnsafeMutablePointer<Block>.allocate(capacity: 1)
            block.initialize(to: Block(slots: slots, next: nil))
            return block
        }
    }

    nonisolated(unsafe) private static let first: UnsafeMutablePointer<Block> = Block.make()

    /// Serialises ``register(_:)`` and ``unregister(_:)`` between threads (outputs opened on
    /// several threads at once must not take the same slot); ``removeAll()`` takes no lock.
    nonisolated(unsafe) private static let registration: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    /// Makes the registry ready (call before installing a signal handler that uses ``removeAll()``).
    public static func prepare() {
        _ = first
        _ = registration
    }

    /// Lists `path`; returns its slot (`nil` only when memory for a new block or buffer cannot
    /// be had).
    public static func register(_ path: String) -> Int? {
        pthread_mutex_lock(registration)
        defer { pthread_mutex_unlock(registration) }
        let needed = path.utf8.count + 1
        var block = first
        var base = 0
        while true {
            for index in 0..<blockCapacity where block.pointee.slots[index].published == nil {
                let slot = block.pointee.slots + index
                if slot.pointee.capacity < needed {
                    // The slot is free: no handler reaches its old buffer through it.
                    let capacity = max(needed, 256)
                    guard let buffer = malloc(capacity)?.assumingMemoryBound(to: CChar.self) else { return nil }
                    free(slot.pointee.buffer)
                    slot.pointee.buffer = buffer
                    slot.pointee.capacity = capacity
                }
                guard let buffer = slot.pointee.buffer else { return nil }
                path.withCString { _ = strcpy(buffer, $0) }
                // Published last: the handler sees a complete path or none.
                slot.pointee.published = buffer
                return base + index
            }
            if block.pointee.next == nil { block.pointee.next = Block.make() }
            guard let next = block.pointee.next else { return nil }
            block = next
            base += blockCapacity
        }
    }

    /// Takes the path in `slot` off the list (its buffer stays with the slot, for the next path).
    public static func unregister(_ slot: Int) {
        pthread_mutex_lock(registration)
        defer { pthread_mutex_unlock(registration) }
        guard slot >= 0 else { return }
        var block = first
        for _ in 0..<(slot / blockCapacity) {
            guard let next = block.pointee.next else { return }
            block = next
        }
        block.pointee.slots[slot % blockCapacity].published = nil
    }

    /// Removes every listed temporary file. Async-signal-safe: reads only, and calls `unlink`.
    public static func removeAll() {
        var block: UnsafeMutablePointer<Block>? = first
        while let current = block {
            for index in 0..<blockCapacity {
                if let path = current.pointee.slots[index].published { unlink(path) }
            }
            block = current.pointee.next
        }
    }
}
