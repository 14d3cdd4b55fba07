-- luacheck's view of the Lua kept among the Swift sources (RepositoryTests runs `luacheck .` here).
std = "lua54"
max_line_length = 140

-- A new project's files are checked where they belong: in a project `coordrun init` makes, under the
-- .luacheckrc it writes (EditorCommandTests).
exclude_files = { "coordrun/Commands/Scaffold/**" }

-- The editor annotations: `---@meta` files of declarations, whose functions have no bodies, and whose
-- descriptions are as long as they need; the driver functions are globals no file here reads (131), nor the classes it declares (241).
files["CoordinatorTools/Editors/*.lua"] = { unused_args = false, allow_defined_top = true, ignore = { "131", "241" }, max_line_length = false }

-- `expect` is written over the driver functions a test file has.
files["CoordinatorTools/FlowTests/expectations.lua"] = { read_globals = { "top", "stack", "tree" } }

-- The plain-Lua side of the journey benchmark reads the cities coordbench sets.
files["coordbench/plain_journeys.lua"] = { read_globals = { "cities" } }
