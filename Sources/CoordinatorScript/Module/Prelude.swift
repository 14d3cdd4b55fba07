/// The Lua half of the `coordinator` module: classes and instances, over the Swift
/// primitives in `native`. Kept small; everything that touches the core is Swift.
enum Prelude {
    /// prelude.lua, beside this file.
    static let source = EmbeddedFile.preludeLua
}
