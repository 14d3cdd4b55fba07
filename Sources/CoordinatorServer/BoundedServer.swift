import FlyingSocks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a ``BoundedServer`` serves: it decides on a request's head, answers the requests it lets in, and
/// may stream text messages to WebSockets.
package protocol RequestHandler: Sendable {
    /// Why `request` is refused, on its head alone (its body is never read, its connection closes), or nil.
    func refusal(_ request: Request) -> Request.Refused?
    /// The most bytes a request's body may hold.
    var bodyLimit: Int { get }
    /// The answer to a request let in, its body read.
    func answer(_ request: Request) async -> Response
    /// `response` with the headers every answer carries, refusals too.
    func finish(_ response: Response) -> Response
    /// The path a page opens its WebSocket on (`GET`), or nil when there is none.
    var livePath: String? { get }
    /// A WebSocket's messages from now on, and what ends them when the socket closes.
    func subscribe() async -> LiveFeed
}

/// The text messages one WebSocket is sent, until `end` is called.
package struct LiveFeed: Sendable {
    package let messages: AsyncStream<String>
    package let end: @Sendable () async -> Void

    package init(messages: AsyncStream<String>, end: @escaping @Sendable () async -> Void) { (self.messages, self.end) = (messages, end) }
}

/// An HTTP/1.1 and WebSocket server over FlyingSocks' sockets (the preview's: `coordrun serve`), bounded so
/// that no peer stops it for the others (docs/Preview.md, "Limits"):
///
/// - a request line or header line over 8 KiB, or headers over 64 KiB, are answered 431 as soon as they are
///   seen, each byte scanned once (``ByteReader``);
/// - at most ``capacity`` connections: min(1,000, the descriptor limit − 64). A connection past it takes the
///   place of the one idle longest (waiting for a request: never a request being answered or a page's
///   WebSocket), which is shut at once, or is closed at once when none is idle; running out of descriptors
///   all the same, the newcomer is taken in through a descriptor held in reserve, and the server goes on;
/// - a WebSocket message over 1 MiB closes that socket with 1009 before it is read.
package actor BoundedServer {
    /// What a connection is doing: only idle ones may be closed to make room.
    private enum Phase { case idle, busy, live }

    private struct Connection {
        let socket: AsyncSocket
        let task: Task<Void, Never>
        var phase: Phase
        var idleSince: ContinuousClock.Instant
    }

    private let listener: AsyncSocket
    private let pool: any AsyncSocketPool
    private let handler: any RequestHandler
    /// The most connections open at once.
    package let capacity: Int
    private var connections: [Int: Connection] = [:]
    private var nextNumber = 0
    /// A descriptor held in reserve: closed to accept (and close) a connection when the process has none
    /// left, so that the peer is told and the listening socket does not stay ready forever.
    private var spare: Int32

    /// A server of `handler` on `address` (listening when this returns).
    package init(address: some SocketAddress, handler: any RequestHandler) throws {
        let socket = try Socket(domain: Int32(type(of: address).family))
        try socket.setValue(true, for: .localAddressReuse)
        try socket.bind(to: address)
        try socket.listen()
        pool = SocketPool.make()
        listener = try AsyncSocket(socket: socket, pool: pool)
        self.handler = handler
        var limit = rlimit()
        let descriptors = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1_024
        capacity = max(1, min(1_000, descriptors - 64))
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// The address it listens on.
    package nonisolated var address: Socket.Address? { try? listener.socket.sockname() }

    /// Serves until the task is cancelled or the listening socket fails.
    package func run() async throws {
        try await pool.prepare()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [pool] in try await pool.run() }
            group.addTask { try await self.acceptConnections() }
            try await group.next()
            group.cancelAll()
        }
    }

    private func acceptConnections() async throws {
        while !Task.isCancelled {
            do {
                admit(try await listener.accept())
            } catch SocketError.failed(_, let code, _) where code == EMFILE || code == ENFILE {
                // Out of descriptors: room is made, or the newcomer told; while neither can be done, the
                // loop waits a moment rather than spin on a listening socket that stays ready.
                if !shed() { try await Task.sleep(for: .milliseconds(10)) }
            } catch SocketError.failed(_, let code, _) where code == ECONNABORTED || code == EINTR || code == EPROTO {
                continue
            }
        }
    }

    /// Out of descriptors: the connection idle longest is shut (its descriptor goes as its task ends), and
    /// the waiting one is accepted through the spare descriptor: served in its place, or closed at once when
    /// no connection was idle. False when there was no spare descriptor to do it with.
    private func shed() -> Bool {
        let evicted = evictIdlest()
        guard spare >= 0 else {
            spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
            return false
        }
        close(spare)
        spare = -1
        let waiting = accept(listener.socket.file.rawValue, nil, nil)
        if waiting >= 0 {
            if evicted, let socket = try? AsyncSocket(socket: Socket(file: Socket.FileDescriptor(rawValue: waiting)), pool: pool) {
                admit(socket)
            } else {
                close(waiting)
            }
        }
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
        return true
    }

    private func admit(_ socket: AsyncSocket) {
        if connections.count >= capacity && !evictIdlest() {
            try? socket.close()
            return
        }
        nextNumber += 1
        let number = nextNumber
        let task = Task { [handler] in
            await Self.serve(socket, number: number, handler: handler, server: self)
            self.remove(number)
        }
        connections[number] = Connection(socket: socket, task: task, phase: .idle, idleSince: .now)
    }

    /// Closes the connection idle longest: shut down at once (its task, waiting to read, sees the end and
    /// closes the descriptor; it is never closed under the task, whose number could be given to another),
    /// and its task cancelled. False when none is idle.
    @discardableResult
    private func evictIdlest() -> Bool {
        guard let (number, _) = connections.filter({ $0.value.phase == .idle }).min(by: { $0.value.idleSince < $1.value.idleSince }),
              let connection = connections.removeValue(forKey: number) else {
            return false
        }
        _ = Glibc.shutdown(connection.socket.socket.file.rawValue, Int32(SHUT_RDWR))
        connection.task.cancel()
        return true
    }

    private func remove(_ number: Int) { connections.removeValue(forKey: number) }

    /// Notes what connection `number` does now; false when it was closed to make room meanwhile.
    private func enter(_ phase: Phase, _ number: Int) -> Bool {
        guard connections[number] != nil, !(connections[number]?.task.isCancelled ?? true) else { return false }
        connections[number]?.phase = phase
        if phase == .idle { connections[number]?.idleSince = .now }
        return true
    }

    /// One connection: requests and their answers, until it closes, breaks a limit or becomes a WebSocket.
    private static func serve(_ socket: AsyncSocket, number: Int, handler: any RequestHandler, server: BoundedServer) async {
        defer { try? socket.close() }
        var reader = ByteReader(socket)
        while true {
            var request: Request
            do {
                guard let next = try await Request.head(from: &reader) else { return }
                request = next
            } catch let refused as Request.Refused {
                try? await socket.write(handler.finish(Response.error(refused.status, refused.message)).bytes(keepAlive: false))
                return
            } catch {
                return
            }
            guard await server.enter(.busy, number) else { return }
            // The gate decides on the head alone: a refused request's body is never read, and its
            // connection is closed (what follows the head is not read either).
            if let refusal = handler.refusal(request) {
                try? await socket.write(handler.finish(Response.error(refusal.status, refusal.message)).bytes(keepAlive: false))
                return
            }
            do {
                try await request.readBody(from: &reader, limit: handler.bodyLimit)
            } catch let refused as Request.Refused {
                try? await socket.write(handler.finish(Response.error(refused.status, refused.message)).bytes(keepAlive: false))
                return
            } catch {
                return
            }
            if let live = handler.livePath, request.path == live, request.method == "GET" {
                switch WebSocket.accept(request) {
                case .success(let handshake):
                    guard (try? await socket.write(handshake.bytes(keepAlive: true))) != nil, await server.enter(.live, number) else { return }
                    await Self.live(socket, reader: reader, feed: await handler.subscribe())
                    return
                case .failure(let refused):
                    try? await socket.write(handler.finish(Response.error(refused.status, refused.message)).bytes(keepAlive: false))
                    return
                }
            }
            let response = await handler.answer(request)
            guard (try? await socket.write(response.bytes(keepAlive: request.keepAlive))) != nil, request.keepAlive,
                  await server.enter(.idle, number) else { return }
        }
    }

    /// A page's WebSocket: every message of `feed` from now on, until the page goes or breaks a rule. One
    /// task writes every frame (messages, answers to pings, the close), whole, in turn; at most 16 wait, the
    /// newest kept.
    private static func live(_ socket: AsyncSocket, reader: ByteReader, feed: LiveFeed) async {
        let states = feed.messages
        let (outgoing, send) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingNewest(16))
        enum Part { case states, reader, writer }
        await withTaskGroup(of: Part.self) { group in
            group.addTask {
                for await state in states { send.yield(WebSocket.frame(opcode: 0x1, Array(state.utf8))) }
                return .states
            }
            group.addTask {
                var reader = reader
                let ending = await WebSocket.readFrames(&reader) { send.yield($0) }
                if case .violated(let code) = ending { send.yield(WebSocket.close(code)) } else { send.yield(WebSocket.close(1000)) }
                send.finish()
                return .reader
            }
            group.addTask {
                for await frame in outgoing { guard (try? await socket.write(frame)) != nil else { break } }
                return .writer
            }
            // The writer ends last: after the close frame, or when the page is gone.
            while let part = await group.next() {
                if part == .writer { break }
            }
            send.finish()
            group.cancelAll()
        }
        await feed.end()
    }
}
