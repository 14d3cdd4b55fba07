import CCoordinatorLua
import CCoordinatorLuaGlue

/// A Lua function that Swift calls back often (an event handler), whose code can be replaced while it is
/// held: ``replace(with:)`` makes every holder call the new function from then on.
///
/// A callback keeps the function in a registry slot of its own, and `call(...)` goes from that slot to
/// `lua_pcall` directly: no Swift reference is retained or released on the way, which is what a handler
/// that runs for every user action wants. Errors come back as ``LuaError``s, as from ``LuaFunction``.
///
/// ```swift
/// let onTap = try LuaCallback(lua.evaluate("return function(x) print('tapped', x) end", as: LuaFunction.self))
/// try onTap.call(42)                                  // tapped 42
/// try onTap.replace(with: lua.evaluate("return function(x) print('new code', x) end", as: LuaFunction.self))
/// try onTap.call(42)                                  // new code 42
/// ```
public final class LuaCallback: LuaReadable, LuaPushable {
    @usableFromInline let core: LuaCore
    /// The registry slot; ``replace(with:)`` puts new code into the same slot.
    @usableFromInline let slot: Int32
    /// When the slot was taken (``LuaReference/era``).
    private let era: Int
    /// Whether what keeps the callback is part of the app now (nil: it is while the callback lives). A
    /// handler whose holder left the app (a request answered) is gone once its operation commits, but a
    /// branch's log keeps it to put it back: the state's fingerprint leaves out a callback this says no of.
    package var isKept: (() -> Bool)?
    /// Whether the slot holds the function still (not freed by a restore of an image taken before it).
    var isAlive: Bool { !core.isClosed && !core.images.isDead(era) }
    /// Its position in the state's list of live callbacks (`LuaState.liveCallbacks`).
    private var position = 0

    /// A callback that calls `function`.
    public init(_ function: LuaFunction) throws {
        let reference = function.reference
        core = reference.core
        let L = try core.thread()
        try reference.pushValue(L)
        defer { lua_settop(L, -2) }
        slot = core.slot(for: -1, in: L)
        era = core.images.era
        enlist()
    }

    /// A callback for the function at `index` (a stack slot of its own, without an intermediate reference).
    init(_ stack: borrowing LuaStack, at index: Int32) {
        core = stack.core
        slot = core.slot(for: index, in: stack.L)
        era = core.images.era
        enlist()
    }

    deinit {
        if !core.isClosed { core.pendingUnrefs.append(PendingUnref(slot: slot, era: era)) } // released at the state's next safe point
        // Off the list of live callbacks: the last one takes this one's place.
        let last = core.callbacks.removeLast()
        if position < core.callbacks.count {
            core.callbacks[position] = last
            last.takeUnretainedValue().position = position
        }
    }

    private func enlist() {
        position = core.callbacks.count
        core.callbacks.append(Unmanaged.passUnretained(self)) // SAFETY[unretained-list]
    }

    /// The function it calls now.
    public var function: LuaFunction {
        get throws {
            let L = try core.thread()
            coordlua_rawgetref(L, slot)
            defer { lua_settop(L, -2) }
            return LuaFunction(reference: core.reference(at: -1, in: L))
        }
    }

    /// Calls `function` from now on; it must belong to the same Lua state.
    public func replace(with function: LuaFunction) throws {
        let L = try core.thread()
        try function.reference.push(on: LuaStack(L, core))
        lua_rawseti(L, coordlua_registryindex(), lua_Integer(slot))
    }

    /// Reads a function argument as a callback (`call.argument(2, as: LuaCallback.self)`).
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaCallback {
        guard stack.type(at: index) == .function else { throw stack.typeError(expected: "function", at: index) }
        try stack.reserve(1)
        stack.core.drainUnrefs()
        return LuaCallback(stack, at: index)
    }

    /// Pushes the function it calls now.
    public func push(to stack: borrowing LuaStack) throws {
        guard stack.core === core else { throw LuaError(.misuse, "a Lua value was used with another Lua state") }
        coordlua_rawgetref(stack.L, slot)
    }

    /// Calls the function with `arguments` and drops its results.
    @inlinable public func call<each A: LuaPushable>(_ arguments: repeat each A) throws {
        try core.call(function: slot, repeat each arguments)
    }

    /// Calls the function with one argument and drops its results: the handler's case, specialized for
    /// the argument's type (an optional pushes its value, or nil) without copying it.
    @inlinable public func call<A: LuaPushable>(_ argument: A) throws {
        try core.call(function: slot, argument: argument)
    }

    /// Calls the function and hands its results to `body` while they are still on the Lua stack (see
    /// ``LuaFunction/call(_:withResults:)``).
    @inlinable public func call<each A: LuaPushable, R>(
        _ arguments: repeat each A, withResults body: (borrowing LuaResults) throws -> R
    ) throws -> R {
        try core.call(function: slot, repeat each arguments, withResults: body)
    }
}
