/// For tests only: random choices read from a list of numbers that a property test generates
/// (`Gen.uint64().array(of:)`), so a failing case shrinks. A shorter list and smaller numbers
/// are simpler choices (past the end every draw is 1: the first option of every choice, and
/// never a draw the standard library's bounded `random(in:)` rejects and draws again), so
/// swift-property-based's shrinking of the list finds a minimal run of the same test code,
/// as Hypothesis does with its choice sequence.
public struct DrawnChoices: RandomNumberGenerator, Sendable {
    public let draws: [UInt64]
    public private(set) var used = 0

    public init(_ draws: [UInt64]) { self.draws = draws }

    public mutating func next() -> UInt64 {
        defer { used += 1 }
        return used < draws.count ? draws[used] : 1
    }
}

extension RandomNumberGenerator {
    /// A number in 0..<bound (bound > 0).
    public mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }
}

/// For tests only: SplitMix64, a generator whose draws are fixed by its seed, for tests that
/// run a few fixed random cases (a red run is never chance).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
