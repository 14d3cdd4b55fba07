// The tools are used over the runtime's API: `import CoordinatorTools` gives the runtime too.
import CoordinatorScript
@_exported import CoordinatorScript
