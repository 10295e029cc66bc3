/// A `watch` replay's event lines as the store queue writes them: the first in memory, up to
/// `memoryLimit`, the rest in an `OutputSpool`. A replay from far back (the
/// change log keeps up to 10,000 changes and 64 MiB of row images, whose events take more) is
/// then never held whole in memory, however many connections ask for one at once. Written on
/// the store queue, then handed with the reply to the I/O queue
/// (`ClientConnection.sendReplay`).
final class ReplayOutput: @unchecked Sendable {
    // @unchecked: written on the store queue, then read on the I/O queue after the reply that
    // holds it was handed over (no two queues at once).
    /// The first lines, in order.
    private(set) var lines: [[UInt8]] = []
    /// The lines after them, in order; nil while they all fit in memory.
    private(set) var spool: OutputSpool?
    /// Why the lines could not all be kept (the spool budget has no room left, the disk is
    /// full): the reader is cut off, as a stream's is.
    private(set) var problem: String?
    private var bytesInMemory = 0
    private let budget: SpoolBudget?

    /// 1 MiB, what a connection reads back from a spool at a time: a replay after a short
    /// absence stays in memory; a longer one costs a connection about this much, not all of it.
    static let memoryLimit = ClientConnection.spoolChunk

    /// `budget`: where the lines past the bound in memory wait (nil: they all stay in memory).
    init(budget: SpoolBudget?) {
        self.budget = budget
    }

    /// Adds the next line.
    func append(_ line: [UInt8]) {
        guard problem == nil else { return }
        guard let budget, spool != nil || bytesInMemory + line.count > ReplayOutput.memoryLimit else {
            lines.append(line)
            bytesInMemory += line.count
            return
        }
        if spool == nil {
            do { spool = try OutputSpool(budget: budget) } catch {
                problem = OutputSpool.describe(error, budget.directory)
                return
            }
        }
        if let spool, !spool.append(line) {
            problem = spool.problem ?? "its replay would take more than the \(budget.limit >> 20) MiB spool budget"
        }
    }
}
