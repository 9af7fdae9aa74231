// bananas-bench: the in-process half of the benchmark (scripts/benchmark runs it and the
// whole-process half, and writes docs/performance.md). Release builds only mean anything.
//
//   bananas-bench [--sizes 100,1000,10000,100000] [--json PATH]   measure
//   bananas-bench seed N PATH                                      write a list of N items
//   bananas-bench profile flush|merge|decode|key N                 one part alone, for callgrind
import BananasFile
import Foundation  // String(format:)
#if canImport(Glibc)
import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "seed", arguments.count == 3, let count = Int(arguments[1]) {
    let bytes = Fixtures.bytes(items: count)
    let file = fopen(arguments[2], "wb")!
    fwrite(bytes, 1, bytes.count, file)
    fclose(file)
    exit(0)
}

// `profile OP N`: one operation a few times, nothing else, to run under callgrind.
if arguments.first == "profile", arguments.count == 3, let count = Int(arguments[2]) {
    let folder = temporaryFolder()
    switch arguments[1] {
    case "flush": _ = try InProcess.flush(items: count, folder: folder, runs: 30)
    case "merge": _ = InProcess.merge(items: count, runs: 3)
    case "decode": _ = try InProcess.codec(items: count, runs: 3)
    case "key": _ = InProcess.keyPress(items: count, runs: 20)
    default: exit(2)
    }
    _ = system("rm -rf '\(folder)'")
    exit(0)
}

var sizes = [100, 1_000, 10_000, 100_000]
var jsonPath: String?
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--sizes": sizes = arguments.removeFirst().split(separator: ",").compactMap { Int($0) }
    case "--json": jsonPath = arguments.removeFirst()
    default:
        let usage = "usage: bananas-bench [--sizes N,N,...] [--json PATH] | seed N PATH\n"
        _ = usage.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}

func line(_ text: String) {
    print(text)
    fflush(nil)
}

var records: [String] = []
for size in sizes {
    let folder = temporaryFolder()
    defer { _ = system("rm -rf '\(folder)'") }
    let key = InProcess.keyPress(items: size)
    let flush = try InProcess.flush(items: size, folder: folder)
    let merge = InProcess.merge(items: size)
    let codec = try InProcess.codec(items: size)
    let atomicWrite = try InProcess.atomicWrite(items: size, folder: folder)
    let fileRead = try InProcess.fileRead(items: size, folder: folder)
    let suggest = InProcess.suggestions(items: size)
    line(String(format: "%7d items  remembered names %d: suggestions built %8.2f ms, query %7.3f ms (p99 %7.3f)",
                size, suggest.names, suggest.build.median, suggest.query.median, suggest.query.percentile(0.99)))
    line(String(format: "%7d items  key→frame %7.3f ms   flush %8.2f ms   merge %8.2f ms   decode %8.2f ms   encode %8.2f ms   atomic write %8.2f ms   read %8.2f ms   file %d bytes",
                size, key.median, flush.median, merge.median, codec.decode.median, codec.encode.median, atomicWrite.median,
                fileRead.median, codec.bytes))
    records.append("""
      {"items": \(size), "fileBytes": \(codec.bytes), "keyPress": \(key.json()), "flush": \(flush.json()), \
    "merge": \(merge.json()), "decode": \(codec.decode.json()), "encode": \(codec.encode.json()), \
    "atomicWrite": \(atomicWrite.json()), "fileRead": \(fileRead.json()), "suggestBuild": \(suggest.build.json()), "suggestQuery": \(suggest.query.json()), \
    "rememberedNames": \(suggest.names)}
    """)
}
if let jsonPath {
    let text = "[\n" + records.joined(separator: ",\n") + "\n]\n"
    let file = fopen(jsonPath, "w")!
    fputs(text, file)
    fclose(file)
}
