/// A ratio of two integers, used for frame rates and time bases (e.g. 30000/1001).
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int64
    public var denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The value as a `Double` (`nan` when the denominator is 0).
    public var doubleValue: Double {
        denominator == 0 ? .nan : Double(numerator) / Double(denominator)
    }

    /// The same ratio in lowest terms.
    public var reduced: Rational {
        var a = numerator.magnitude
        var b = denominator.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        guard a > 1 else { return self }
        return Rational(numerator / Int64(a), denominator / Int64(a))
    }

    public var description: String { "\(numerator)/\(denominator)" }
}
