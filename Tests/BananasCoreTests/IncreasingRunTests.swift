import PropertyBased
import Testing
@testable import BananasCore

/// The run of sections kept in place when the sections are set (`sectionSteps`).
@Suite struct IncreasingRunTests {
    @Test("the run kept is strictly increasing, of known values, and as long as any")
    func aLongestIncreasingRun() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: -1...12).array(of: 0...60)) { draws in
            // -1 is an unknown position; few values, so there are ties.
            let values: [Double?] = draws.map { $0 < 0 ? nil : Double($0) }
            let run = ShoppingList.longestIncreasingRun(values)
            #expect(zip(run, run.dropFirst()).allSatisfy { $0 < $1 }, "\(values) → \(run)")
            let kept = run.compactMap { values[$0] }
            #expect(kept.count == run.count && zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 }, "\(values) → \(run)")
            // The longest length, by the quadratic recurrence.
            var length = [Int](repeating: 0, count: values.count)
            for i in values.indices {
                guard let value = values[i] else { continue }
                var longestBefore = 0
                for j in 0..<i where values[j].map({ $0 < value }) == true { longestBefore = max(longestBefore, length[j]) }
                length[i] = longestBefore + 1
            }
            #expect(run.count == (length.max() ?? 0), "\(values) → \(run)")
        }
    }
}
