/// A value held once on the heap and copied only when it is changed while shared: for the
/// records a run hands through many copies (an outcome, a verdict, the device), so that a copy
/// costs one reference count instead of one per string in it.
///
/// `@unchecked Sendable` invariant of `Box`: `value` is written only through `value`'s
/// `_modify`, which first makes the box this copy's own (`isKnownUniquelyReferenced`); a box
/// two copies share, which another thread may read, is never written.
package struct CopyOnWrite<Value: Sendable>: Sendable {
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline var value: Value

        @inlinable init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable package init(_ value: Value) { box = Box(value) }

    @inlinable package var value: Value {
        get { box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// Whether both share one box, so hold the same value without comparing it.
    @inlinable package func sharesStorage(with other: CopyOnWrite) -> Bool { box === other.box }
}
