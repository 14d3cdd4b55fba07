/// An error raised by Lua code, by loading a chunk, or by the bridge itself.
///
/// Every failure that crosses from Lua into Swift arrives as a `LuaError`. It keeps the message exactly as
/// Lua formats it (`app.lua:12: attempt to index a nil value`), the location split out of it, the traceback
/// taken where the error was raised, and, when the error started as a Swift error thrown inside a Swift
/// callback, that original error as ``underlying``.
///
/// ```swift
/// do {
///     try lua.run("local t = nil; return t.x", name: "app.lua")
/// } catch let error as LuaError {
///     print(error.chunk ?? "?", error.line ?? 0)   // app.lua 1
///     print(error.reason)                          // attempt to index a nil value (local 't')
/// }
/// ```
public struct LuaError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The chunk did not compile.
        case syntax
        /// A runtime error raised by Lua code or by a Swift callback.
        case runtime
        /// An allocation failed, usually because the state's memory limit was reached.
        case memory
        /// The error handler itself failed.
        case errorHandler
        /// A script file could not be opened or read.
        case file
        /// The running code was stopped by ``LuaState/interrupt()``.
        case interrupted
        /// The running code used up ``LuaState/instructionBudget``.
        case budgetExhausted
        /// A value did not have the type Swift asked for.
        case type
        /// The state was used after ``LuaState/close()``, or a value was used with another state.
        case misuse
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The message as Lua formats it, location prefix included (`app.lua:12: boom`).
    public var message: String
    /// The chunk the error points at (`app.lua`), when known.
    public var chunk: String?
    /// The line the error points at, when known.
    public var line: Int?
    /// Lua's stack traceback at the point of the error, when one was taken.
    public var traceback: String?
    /// The Swift error that a Swift callback threw, when this Lua error started as one.
    public var underlying: (any Error)?
    /// The error object when Lua code raised something else than a string (`error({ code = 1 })`), copied:
    /// a host reads `error.value?["code"]`. Nil for string errors and the bridge's own.
    public var value: LuaErrorValue?
    /// Whether this is a syntax error at the end of the input (an open `function`, string or table): the
    /// chunk is incomplete rather than wrong, so a REPL asks for another line, as `lua` does.
    public var isIncompleteInput: Bool { kind == .syntax && message.hasSuffix("<eof>") }
    /// Whether Lua raised this error (its message is final), as opposed to Swift code creating it.
    var raisedByLua = false

    /// Creates an error; the location is read from a `chunk:line:` prefix of `message` or else from the
    /// first Lua frame of `traceback`.
    public init(_ kind: Kind, _ message: String, traceback: String? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.underlying = underlying
        if let (chunk, line) = LuaError.location(in: message) ?? traceback.flatMap(LuaError.locationInTraceback) {
            self.chunk = chunk
            self.line = line
        }
    }

    /// The message without its `chunk:line: ` prefix.
    public var reason: String {
        guard let chunk, let line else { return message }
        let prefix = "\(chunk):\(line): "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }

    /// `chunk:line`, when the location is known.
    public var location: String? {
        guard let chunk, let line else { return nil }
        return "\(chunk):\(line)"
    }

    public var description: String { message }

    /// The message followed by the traceback, as Lua's own interpreter prints an error.
    public var fullDescription: String {
        guard let traceback, !traceback.isEmpty else { return message }
        return "\(message)\n\(traceback)"
    }

    /// Finds a leading `chunk:line: ` in a message. Only its start is read (a chunk's name is at most a
    /// path), so a message of megabytes costs no more than a short one.
    static func location(in message: String) -> (String, Int)? {
        let head = Array(message.utf8.prefix(4_200))
        let end = head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex
        var search = 0
        while let colon = head[search..<end].firstIndex(of: UInt8(ascii: ":")) {
            var digitsEnd = colon + 1
            while digitsEnd < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(head[digitsEnd]) { digitsEnd += 1 }
            if digitsEnd > colon + 1, digitsEnd < end, head[digitsEnd] == UInt8(ascii: ":"), colon > 0,
               let line = Int(String(decoding: head[(colon + 1)..<digitsEnd], as: UTF8.self)) {
                return (String(decoding: head[..<colon], as: UTF8.self), line)
            }
            search = colon + 1
        }
        return nil
    }

    /// The first Lua frame (`\tchunk:line: in ...`) of a traceback, skipping C frames.
    static func locationInTraceback(_ traceback: String) -> (String, Int)? {
        for line in traceback.split(separator: "\n") {
            let frame = line.drop { $0 == "\t" || $0 == " " }
            if frame.hasPrefix("[C]") || frame.hasPrefix("(...") { continue }
            if let found = location(in: String(frame)) { return found }
        }
        return nil
    }
}
