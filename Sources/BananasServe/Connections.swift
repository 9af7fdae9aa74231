import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections the server keeps open, so that idle clients cannot starve the others
/// (the paired phone): at most `perAddress` from one client address and `total` in all. A new
/// connection past either bound closes the connection of that address (or of any, past
/// `total`) that has been idle longest: one that is between requests, not one whose request
/// is being answered (an event stream is never idle). When none is idle, the new one is closed.
///
/// With the HTTP channel's idle timeout (`WebServer.idleTimeout`), which also bounds the time
/// from connecting, or from the last answer, to a complete request head: a client that holds
/// a connection and sends nothing, or sends its headers a byte at a time, loses it.
public final class ConnectionTable: Sendable {
    public let perAddress: Int
    public let total: Int

    struct Entry {
        var channel: any Channel
        var address: String
        /// A request is being read or answered.
        var busy = false
        /// When it last became idle (connected, or answered its last request).
        var idleSince = NIODeadline.now()
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    public init(perAddress: Int = 32, total: Int = 512) {
        self.perAddress = perAddress
        self.total = total
    }

    /// A handler for one connection's pipeline (after the HTTP codec).
    public func handler() -> ConnectionGuard { ConnectionGuard(table: self) }

    public var count: Int { entries.withLock { $0.count } }

    /// Takes a new connection in; closes what must make room for it.
    func opened(_ channel: any Channel) {
        let address = channel.remoteAddress?.ipAddress ?? "local"
        let id = ObjectIdentifier(channel)
        let evicted: [any Channel] = entries.withLock { entries in
            guard entries[id] == nil else { return [] }
            entries[id] = Entry(channel: channel, address: address)
            var closing: [any Channel] = []
            if entries.values.count(where: { $0.address == address }) > perAddress {
                closing.append(Self.evict(from: &entries, besides: id, where: { $0.address == address }) ?? channel)
            }
            if entries.count > total {
                closing.append(Self.evict(from: &entries, besides: id, where: { _ in true }) ?? channel)
            }
            return closing
        }
        for channel in evicted { channel.close(promise: nil) }
    }

    /// Removes the longest idle connection matching `matches` (never `besides`); nil when none is idle.
    private static func evict(from entries: inout [ObjectIdentifier: Entry], besides id: ObjectIdentifier,
                              where matches: (Entry) -> Bool) -> (any Channel)? {
        let idle = entries.filter { $0.key != id && !$0.value.busy && matches($0.value) }
        guard let oldest = idle.min(by: { $0.value.idleSince < $1.value.idleSince }) else {
            entries[id] = nil
            return nil
        }
        entries[oldest.key] = nil
        return oldest.value.channel
    }

    func closed(_ channel: any Channel) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func setBusy(_ channel: any Channel, _ busy: Bool) {
        entries.withLock { entries in
            guard entries[ObjectIdentifier(channel)] != nil else { return }
            entries[ObjectIdentifier(channel)]!.busy = busy
            if !busy { entries[ObjectIdentifier(channel)]!.idleSince = .now() }
        }
    }
}

/// One connection's part of `ConnectionTable`: registers it, and tells when a request starts
/// (its head is read) and ends (its answer's end is written).
public final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    let table: ConnectionTable
    private var registered = false

    init(table: ConnectionTable) {
        self.table = table
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { register(context.channel) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        register(context.channel)
        context.fireChannelActive()
    }

    private func register(_ channel: any Channel) {
        guard !registered else { return }
        registered = true
        table.opened(channel)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        table.closed(context.channel)
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        table.closed(context.channel)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { table.setBusy(context.channel, true) }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { table.setBusy(context.channel, false) }
        context.write(data, promise: promise)
    }
}
