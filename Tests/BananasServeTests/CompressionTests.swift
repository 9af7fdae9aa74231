import BananasCore
import CompressNIO
@testable import BananasServe
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// gzip of the page and the API (docs/serve.md, "Compression"): what a browser that accepts it
/// gets, decompressed, is byte for byte what any other client gets.
@MainActor @Suite struct CompressionTests {
    static func gunzip(_ buffer: ByteBuffer) throws -> ByteBuffer {
        var buffer = buffer
        return try buffer.decompress(with: .gzip())
    }

    @Test func theListAndAnEditsAnswerAreGzippedForABrowserThatAcceptsIt() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        for k in 0..<200 { _ = try harness.add("Item \(k)", section: ["Dairy", "Bakery", "Produce"][k % 3]) }
        try await harness.app.test(.router) { @MainActor client in
            let plain = try await client.execute(uri: "/api/list", method: .get, headers: .device(token))
            #expect(plain.status == .ok)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let zipped = try await client.execute(uri: "/api/list", method: .get,
                                                  headers: .device(token, [.acceptEncoding: "gzip, deflate, br, zstd"]))
            #expect(zipped.status == .ok)
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.headers[.vary] == "Accept-Encoding")
            #expect(zipped.headers[.contentType] == "application/json; charset=utf-8")
            // The same list (its sync state aside: the store may have written the file between
            // the two requests).
            var unzipped = try JSONText.parse(Array(try Self.gunzip(zipped.body).readableBytesView)).objectValue ?? [:]
            var plainList = json(plain)
            #expect(unzipped.removeValue(forKey: "state") != nil)
            #expect(plainList.removeValue(forKey: "state") != nil)
            #expect(unzipped == plainList)
            #expect(unzipped["items"]?.arrayValue?.count == 200)
            // The list's JSON repeats ids, stamps and keys: well under half its size.
            #expect(zipped.body.readableBytes * 3 < plain.body.readableBytes, "\(zipped.body.readableBytes) of \(plain.body.readableBytes)")

            let id = harness.store.list.items[0].id
            let answer = try await client.execute(uri: "/api/edits", method: .post,
                                                  headers: .device(token, [.acceptEncoding: "gzip", .contentType: "application/json"]),
                                                  body: edit(["op": "check", "id": .string(id), "checked": true]))
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentEncoding] == "gzip")
            let decoded = try JSONText.parse(Array(try Self.gunzip(answer.body).readableBytesView))
            #expect(decoded.objectValue?["outcome"] == .string("checked"))
        }
        #expect(harness.store.list.items[0].checked)
    }

    @Test func withoutGzipInAcceptEncodingTheAnswerIsPlain() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        try await harness.app.test(.router) { @MainActor client in
            for accept in ["identity", "gzip;q=0", "br", "deflate, gzip; q=0.0"] {
                let response = try await client.execute(uri: "/api/list", method: .get, headers: .device(token, [.acceptEncoding: accept]))
                #expect(response.headers[.contentEncoding] == nil, "\(accept)")
                #expect(json(response)["items"] != nil, "\(accept)")
            }
            for accept in ["GZIP", "deflate;q=1, gzip;q=0.5", "*"] {
                let response = try await client.execute(uri: "/api/list", method: .get, headers: .device(token, [.acceptEncoding: accept]))
                #expect(response.headers[.contentEncoding] == "gzip", "\(accept)")
            }
        }
    }

    /// Every file the page loads, as a phone's browser gets it: at most 50 KB together (the
    /// issue's limit), each the same text once decompressed.
    @Test func thePageWeighsAtMost50KBCompressed() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        var total = 0, plainTotal = 0
        try await harness.app.test(.router) { @MainActor client in
            for path in ["/", "/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"] {
                let plain = try await client.execute(uri: path, method: .get, headers: .device(token))
                let zipped = try await client.execute(uri: path, method: .get, headers: .device(token, [.acceptEncoding: "gzip"]))
                #expect(zipped.status == .ok, "\(path)")
                #expect(zipped.headers[.contentEncoding] == "gzip", "\(path)")
                #expect(zipped.headers[.vary] == "Accept-Encoding", "\(path)")
                #expect(try Self.gunzip(zipped.body) == plain.body, "\(path)")
                if path != "/" {  // the same page as /pair
                    total += zipped.body.readableBytes
                    plainTotal += plain.body.readableBytes
                }
            }
        }
        #expect(total <= 50 * 1024, "\(total) bytes compressed")
        #expect(total * 2 < plainTotal, "\(total) of \(plainTotal)")
    }

    /// The event stream, gzipped: each event is whole in what was sent as soon as it is written,
    /// so no event waits for the next one (or for the stream's end).
    @Test func eachEventIsSentAtOnceWhenTheStreamIsGzipped() async throws {
        let sink = Sink()
        var writer = try GzipWriter(sink, streaming: true)
        let decompressor = CompressionAlgorithm.gzip().decompressor
        try decompressor.startStream()
        var received = ""
        for k in 0..<5 {
            let event = "event: list\ndata: {\"revision\": \(k), \"items\": [\(String(repeating: "{\"name\": \"Milk\"},", count: k * 50))]}\n\n"
            try await writer.write(ByteBuffer(string: event))
            var sent = sink.take()
            #expect(sent.readableBytes > 0)
            let inflated = try sent.decompressStream(with: decompressor)
            received += String(buffer: inflated)
            #expect(received.hasSuffix(event), "event \(k) not whole in what was sent")
        }
        try await writer.finish(nil)
        #expect(sink.finished)
    }
}

/// A response body writer that keeps what it is given.
final class Sink: ResponseBodyWriter, @unchecked Sendable {
    private var buffer = ByteBuffer()
    private(set) var finished = false

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws { finished = true }

    func take() -> ByteBuffer {
        defer { buffer.clear() }
        return buffer
    }
}
