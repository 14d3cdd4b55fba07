import CCoordinatorLua
import CCoordinatorLuaGlue
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds.
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Nanoseconds of CPU time this process has used (all its threads).
func cpuNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Nanoseconds per operation of the best of `rounds` runs of `body` (which performs `operations`).
func best(rounds: Int, operations: Int, _ body: () throws -> Void) rethrows -> Double {
    var result = Double.infinity
    for _ in 0..<rounds {
        let start = now()
        try body()
        result = min(result, Double(now() - start) / Double(operations))
    }
    return result
}

/// The product and its floor measured in alternating rounds of the same run; best of each.
func compare(rounds: Int, operations: Int, product: () throws -> Void, floor: () throws -> Void) rethrows -> (product: Double, floor: Double) {
    var p = Double.infinity, f = Double.infinity
    for _ in 0..<rounds {
        p = min(p, try best(rounds: 1, operations: operations, product))
        f = min(f, try best(rounds: 1, operations: operations, floor))
    }
    return (p, f)
}

/// Bytes the process has allocated with malloc now (Lua's allocations included).
func mallocBytes() -> Int { Int(coordlua_malloc_in_use()) }
