import Dispatch

/// Repeated timings of one operation: warm-up runs first (not kept), then `runs` samples.
struct Samples: Sendable {
    var millis: [Double]

    var median: Double { percentile(0.5) }
    var min: Double { millis.min() ?? 0 }
    var max: Double { millis.max() ?? 0 }
    func percentile(_ p: Double) -> Double {
        let sorted = millis.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
    }
    /// Median absolute deviation: the spread, robust to one slow outlier.
    var mad: Double {
        let m = median
        return Samples(millis: millis.map { abs($0 - m) }).median
    }

    func json(extra: [String: Double] = [:]) -> String {
        var fields = ["median": median, "p99": percentile(0.99), "min": min, "max": max, "mad": mad, "runs": Double(millis.count)]
        fields.merge(extra) { $1 }
        return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }
}

func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Times `body` `warmup + runs` times; `prepare` runs before each, outside the timing.
func measure(warmup: Int, runs: Int, prepare: (Int) -> Void = { _ in }, _ body: (Int) throws -> Void) rethrows -> Samples {
    var millis: [Double] = []
    millis.reserveCapacity(runs)
    for k in 0..<(warmup + runs) {
        prepare(k)
        let start = nowNanos()
        try body(k)
        let elapsed = Double(nowNanos() - start) / 1e6
        if k >= warmup { millis.append(elapsed) }
    }
    return Samples(millis: millis)
}
