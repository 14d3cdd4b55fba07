import CCoordinatorLua
import CCoordinatorLuaGlue

/// What the core knows about a Swift class registered as a userdata type.
final class LuaClassInfo {
    let name: String
    let metatableRef: Int32
    /// The table of its methods (what `object.method` finds).
    let methodsRef: Int32
    /// The class tag stored in each of its userdata blocks (the metatable's address: unique and stable,
    /// since the registry keeps the metatable alive until the state closes).
    let tag: UnsafeRawPointer // SAFETY[identity-address]
    init(name: String, metatableRef: Int32, methodsRef: Int32, tag: UnsafeRawPointer) { // SAFETY[identity-address]
        self.name = name
        self.metatableRef = metatableRef
        self.methodsRef = methodsRef
        self.tag = tag
    }
}

/// A method as the trampoline calls it: the object's unretained pointer, already checked to be an instance
/// of the class, and the call.
typealias LuaRawMethod = (UnsafeMutableRawPointer, borrowing LuaCall) throws -> Void // SAFETY[boxed-object]

/// A named method or accessor. A struct rather than a tuple: a closure kept in a tuple array is stored
/// at the array's generic abstraction and every call then goes through reabstraction thunks.
struct LuaClassEntry {
    let name: String
    let body: LuaRawMethod
    init(_ name: String, _ body: @escaping LuaRawMethod) {
        self.name = name
        self.body = body
    }
}

/// Describes how a Swift class looks from Lua: its methods, properties and metamethods.
///
/// Build one inside ``LuaState/register(_:name:_:)``:
///
/// ```swift
/// final class Counter { var value = 0 }
///
/// try lua.register(Counter.self, name: "Counter") { c in
///     c.method("increment") { counter, call in
///         counter.value += try call.optional(1) ?? 1
///         try call.push(counter.value)
///     }
///     c.property("value", get: { $0.value }, set: { $0.value = $1 })
///     c.toString { "Counter(\($0.value))" }
/// }
/// try lua.globals.set("counter", lua.userdata(Counter()))
/// try lua.run("counter:increment(); counter.value = counter.value * 10; print(counter)")  // Counter(10)
/// ```
///
/// Reading a field that is neither a method nor a property gives `nil` (unless ``index(_:)`` handles it);
/// writing one is an error naming the class and the field.
public final class LuaClassBuilder<Object: AnyObject> {
    let name: String
    var methods: [LuaClassEntry] = []
    var getters: [LuaClassEntry] = []
    var setters: [LuaClassEntry] = []
    var metamethods: [LuaClassEntry] = []
    var indexFallback: LuaRawMethod?
    var newIndexFallback: LuaRawMethod?
    var standInField: String?

    init(name: String) { self.name = name }

    /// Lets Lua tables stand for objects of the class: a method called on a table whose raw field `field`
    /// holds an object's userdata runs on that object, as if called on the userdata.
    ///
    /// Lua code can then wrap an object in a table of its own (an instance of a Lua class, with the Swift
    /// object under `field`) and put the class's methods (``LuaState/methods(of:)``) on that table's
    /// metatable chain, so `instance:method(...)` reaches Swift with no forwarding function in between.
    ///
    /// ```swift
    /// try lua.register(Counter.self, name: "Counter") { c in
    ///     c.method("increment") { counter, _ in counter.value += 1 }
    ///     c.standIn(field: "__object")
    /// }
    /// try lua.globals.set("Counter", lua.methods(of: Counter.self))
    /// try lua.globals.set("counter", lua.userdata(Counter()))
    /// try lua.run("""
    ///     local wrapped = setmetatable({ __object = counter }, { __index = Counter })
    ///     wrapped:increment()
    ///     """)
    /// ```
    package func standIn(field: String) { standInField = field }

    /// Wraps a typed body for the trampoline. The userdata (argument 1, on the stack for the whole call)
    /// retains the object, and the C trampoline checked its class tag, so the object is borrowed without a
    /// retain and the typed view is sound.
    @inline(__always)
    static func raw(_ body: @escaping (Object, borrowing LuaCall) throws -> Void) -> LuaRawMethod {
        { pointer, call in try Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef { try body($0, call) } } // SAFETY[boxed-object]
    }

    /// A method, called from Lua as `object:name(...)`. Argument 1 of the call is the first after `self`.
    public func method(_ name: String, _ body: @escaping (Object, borrowing LuaCall) throws -> Void) {
        methods.append(LuaClassEntry(name, Self.raw(body)))
    }

    /// A method with no arguments and one typed result.
    public func method<R: LuaPushable>(_ name: String, _ body: @escaping (Object) throws -> R) {
        methods.append(LuaClassEntry(name, Self.raw { object, call in try call.pushResult(try body(object)) }))
    }

    /// A method with one typed argument and one typed result.
    public func method<A: LuaReadable, R: LuaPushable>(_ name: String, _ body: @escaping (Object, A) throws -> R) {
        methods.append(LuaClassEntry(name, { pointer, call in
            try Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef { object in // SAFETY[boxed-object]
                try call.pushResult(try body(object, call.argument(1)))
            }
        }))
    }

    /// A method with two typed arguments and one typed result.
    public func method<A: LuaReadable, B: LuaReadable, R: LuaPushable>(
        _ name: String, _ body: @escaping (Object, A, B) throws -> R
    ) {
        methods.append(LuaClassEntry(name, Self.raw { object, call in try call.pushResult(try body(object, call.argument(1), call.argument(2))) }))
    }

    /// A property read as `object.name` and, with `set`, written as `object.name = value`.
    public func property<V: LuaPushable & LuaReadable>(
        _ name: String, get: @escaping (Object) throws -> V, set: ((Object, V) throws -> Void)? = nil
    ) {
        getters.append(LuaClassEntry(name, Self.raw { object, call in try call.pushResult(try get(object)) }))
        if let set {
            setters.append(LuaClassEntry(name, Self.raw { [className = self.name] object, call in
                let value: V
                do { value = try V.read(from: call.stack, at: 2) } catch let error as LuaError where error.kind == .type {
                    throw LuaError(.runtime, "bad value for '\(className).\(name)' (\(error.message))")
                }
                try set(object, value)
            }))
        }
    }

    /// A read-only property; assigning it from Lua is an error.
    public func readOnly<V: LuaPushable>(_ name: String, _ get: @escaping (Object) throws -> V) {
        getters.append(LuaClassEntry(name, Self.raw { object, call in try call.pushResult(try get(object)) }))
    }

    /// Handles reads of fields that are neither methods nor properties: argument 1 is the key; push the
    /// value (or nothing, for `nil`).
    public func index(_ body: @escaping (Object, borrowing LuaCall) throws -> Void) { indexFallback = Self.raw(body) }

    /// Handles writes of fields that are not properties: argument 1 is the key, argument 2 the value.
    public func newIndex(_ body: @escaping (Object, borrowing LuaCall) throws -> Void) { newIndexFallback = Self.raw(body) }

    /// `tostring(object)`. Without it, Lua shows `Name: 0x...`.
    public func toString(_ body: @escaping (Object) throws -> String) {
        metamethods.append(LuaClassEntry("__tostring", Self.raw { object, call in try call.pushResult(try body(object)) }))
    }

    /// `a == b` between two userdata of this class. Without it, equality is identity, which the bridge
    /// keeps: the same Swift object always arrives in Lua as the same userdata.
    public func equals(_ body: @escaping (Object, Object) throws -> Bool) {
        metamethods.append(LuaClassEntry("__eq", Self.raw { object, call in
            guard let other = call.core.classes.object(at: 2, in: call.L, as: Object.self) else {
                try call.pushResult(false)
                return
            }
            try call.pushResult(try body(object, other))
        }))
    }

    /// Any other metamethod (`__call`, `__len`, `__lt`, `__le`, `__concat`, `__close`, ...). The object is
    /// the first operand; the call's arguments are the remaining operands.
    public func metamethod(_ event: String, _ body: @escaping (Object, borrowing LuaCall) throws -> Void) {
        metamethods.append(LuaClassEntry(event, Self.raw(body)))
    }
}

extension LuaState {
    /// Registers a Swift class so that its instances can be handed to Lua as userdata.
    ///
    /// Each instance handed to Lua is retained until Lua collects its userdata (or the state closes), then
    /// released. The same instance always maps to the same userdata while Lua holds it. Methods check their
    /// `self`: calling a method on the wrong value is a Lua error, never a crash. Registering a class again
    /// replaces its definition for userdata created afterwards.
    public func register<Object: AnyObject>(
        _ type: Object.Type, name: String, _ define: (LuaClassBuilder<Object>) throws -> Void = { _ in }
    ) throws {
        _ = try registerClass(type, name: name, define)
    }

    /// ``register(_:name:_:)``, giving the class's tag (for ``LuaStack/object(at:tag:)`` in a bridge's hot
    /// converters).
    @discardableResult package func registerClass<Object: AnyObject>(
        _ type: Object.Type, name: String, _ define: (LuaClassBuilder<Object>) throws -> Void = { _ in }
    ) throws -> LuaClassTag<Object> {
        let builder = LuaClassBuilder<Object>(name: name)
        try define(builder)
        return try core.classes.register(builder, in: core)
    }

    /// The table of a registered class's methods (name → function), for Lua code that calls them through
    /// tables standing for the objects (``LuaClassBuilder/standIn(field:)``).
    package func methods<Object: AnyObject>(of type: Object.Type) throws -> LuaTable {
        let L = try core.thread()
        guard let info = core.classes.info(for: type) else {
            throw LuaError(.misuse, "\(type) is not registered with this Lua state (use register(_:name:))")
        }
        coordlua_rawgetref(L, info.methodsRef)
        defer { lua_settop(L, -2) }
        return LuaTable(reference: core.reference(at: -1, in: L))
    }

    /// Wraps a Swift object of a registered class as a userdata.
    public func userdata<Object: AnyObject>(_ object: Object) throws -> LuaUserdata {
        let L = try core.thread()
        try core.classes.pushObject(object, L, core: core)
        defer { lua_settop(L, -2) }
        return LuaUserdata(reference: core.reference(at: -1, in: L))
    }
}

/// A Swift object of a registered class as an argument or a result: pushed as its userdata (the same
/// userdata every time while Lua holds it), without taking a registry reference as ``LuaState/userdata(_:)``
/// does.
///
/// ```swift
/// try render.call(LuaObject(screen), as: String.self)   // render(screen) in Lua
/// try call.push(LuaObject(screen))                      // a Swift function returning it
/// ```
public struct LuaObject<Object: AnyObject>: LuaPushable {
    /// The object pushed.
    public let object: Object
    /// Made just now: Lua cannot have a userdata for it yet, so none is looked for.
    let isNew: Bool
    /// `object`, pushed as its userdata (made on the first push, the same one while Lua holds it).
    public init(_ object: Object) { self.object = object; isNew = false }
    /// An object made just now, which Lua has never been given (within this package: pushing an object Lua
    /// already has this way would give it a second userdata).
    package init(new object: Object) { self.object = object; isNew = true }

    public func push(to stack: borrowing LuaStack) throws { try stack.core.classes.pushObject(object, stack.L, isNew: isNew, core: stack.core) }
}

/// How the userdata of one registration of a class are marked, for code that recognises them often: one
/// comparison, without looking the class up or casting (``LuaStack/object(at:tag:)``). Returned by
/// ``LuaState/register(_:name:_:)``; valid for the state it was registered in. Like method calls, it
/// trusts the mark, which scripts cannot forge without the debug library (see ``LuaLibraries/safe``).
///
/// ```swift
/// let tag = try lua.register(Point.self, name: "Point")
/// // in a hot converter: if let point = stack.object(at: i, tag: tag) { ... }
/// ```
@usableFromInline package struct LuaClassTag<Object: AnyObject> {
    @usableFromInline let pointer: UnsafeRawPointer // SAFETY[identity-address]
}

/// The class an object's userdata is made for, by the object's dynamic type and the type it is pushed as.
struct PushedClass: Equatable {
    var dynamic: ObjectIdentifier
    var `static`: ObjectIdentifier
}
