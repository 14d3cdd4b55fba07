import PackagePlugin

/// Gives a target the files of other languages that sit among its Swift sources (Lua, HTML, CSS,
/// JavaScript, SQL, YAML, JSON, Markdown, ...) as string constants, so that each such file is read by its
/// own language's tools (luacheck, the browser, an editor) while the program needs no resource bundle and no
/// Foundation to find it at run time: `embed-files` writes one Swift file, `enum EmbeddedFile`, with a
/// constant per file named after it (`prelude.lua` becomes `EmbeddedFile.preludeLua`). A DocC catalog's
/// files are not embedded.
@main
struct EmbedFilesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let files = module.sourceFiles
            .filter { $0.type != .source && $0.type != .header }
            .map(\.url)
            .filter { url in !url.pathComponents.contains { $0.hasSuffix(".docc") } }
            .sorted { $0.path < $1.path }
        guard !files.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFile.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files in \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
