import BananasCore
import CompressNIO
import HTTPTypes
import Hummingbird

/// gzip for every answer a browser can take it for (`Accept-Encoding: gzip`): the page's files,
/// the API's JSON (the list repeats its ids, stamps and keys: a fifth of its size gzipped) and
/// the event stream. zlib does the work, through compress-nio (Hummingbird has no compression of
/// its own). Answers that may be compressed say `Vary: Accept-Encoding`, compressed or not.
///
/// A body written in one piece (every answer but the event stream) is compressed whole. The
/// event stream is compressed as it goes: each event is flushed (zlib's sync flush) as soon as
/// it is written, so the browser can decode it at once and no event waits for the next.
struct CompressionMiddleware: RouterMiddleware {
    typealias Context = ServeContext

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard let type = response.headers[.contentType], Self.isCompressible(type) else { return response }
        response.headers[.vary] = "Accept-Encoding"
        guard request.method != .head, response.headers[.contentEncoding] == nil, response.body.contentLength != 0,
              Self.acceptsGzip(request.headers[values: .acceptEncoding]) else { return response }
        let streaming = type.hasPrefix("text/event-stream")
        let body = response.body
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = nil
        response.body = ResponseBody { writer in
            try await body.write(try GzipWriter(writer, streaming: streaming))
        }
        return response
    }

    /// Text, JSON, the manifest, the SVG icon and the event stream; nothing already compressed.
    static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("application/manifest+json")
            || type.hasPrefix("image/svg+xml")
    }

    /// Whether `Accept-Encoding` names gzip (or `*`) with a weight above 0.
    static func acceptsGzip(_ values: [String]) -> Bool {
        for value in values {
            for entry in value.split(separator: ",") {
                let parts = entry.split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
                guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
                let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                if weight > 0 { return true }
            }
        }
        return false
    }

    /// gzip of a whole buffer (the tests' and the benchmark's reference).
    static func gzip(_ buffer: ByteBuffer) throws -> ByteBuffer {
        var input = buffer
        let compressor = CompressionAlgorithm.gzip().compressor
        try compressor.startStream()
        defer { try? compressor.finishStream() }
        return try deflate(&input, with: compressor, flush: .finish)
    }

    /// Everything `input` gives with `flush`, however many output buffers it takes.
    static func deflate(_ input: inout ByteBuffer, with compressor: NIOCompressor, flush: CompressNIOFlush) throws -> ByteBuffer {
        var output = ByteBuffer()
        while true {
            var chunk = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: input) + 64)
            do {
                try input.compressStream(to: &chunk, with: compressor, flush: flush)
                output.writeBuffer(&chunk)
                return output
            } catch let error as CompressNIOError where error == .bufferOverflow {
                // The buffer filled up: keep what it holds and go on with a new one.
                output.writeBuffer(&chunk)
            }
        }
    }
}

/// Writes a response body gzipped to the writer underneath: at `finish` in one piece, or (the
/// event stream) each write flushed at once.
struct GzipWriter: ResponseBodyWriter {
    var writer: any ResponseBodyWriter
    let streaming: Bool
    let compressor: NIOCompressor
    var pending = ByteBuffer()

    init(_ writer: any ResponseBodyWriter, streaming: Bool) throws {
        self.writer = writer
        self.streaming = streaming
        compressor = CompressionAlgorithm.gzip().compressor
        try compressor.startStream()
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        guard streaming else {
            pending.writeBuffer(&buffer)
            return
        }
        try await writer.write(try CompressionMiddleware.deflate(&buffer, with: compressor, flush: .sync))
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        let out = try CompressionMiddleware.deflate(&pending, with: compressor, flush: .finish)
        try? compressor.finishStream()
        try await writer.write(out)
        try await writer.finish(trailingHeaders)
    }
}
