import CoordinatorCore
import CoordinatorLua

/// The coordinator tree as Lua data, for the driver function `tree()`: each node a table
/// `{ name =, id =, status =, screens = { names... }, children = { nodes... } }`.
///
/// Built without recursion, on a constant number of stack slots: every node's table and its children list
/// are made in one pass over the tree (parents before children) and kept in two flat lists by position,
/// so a child is linked into its parent's list by the parent's position. A chain 100,000 deep costs what
/// 100,000 siblings cost.
struct CoordinatorTree: LuaPushable {
    let root: Coordinator

    func push(to stack: borrowing LuaStack) throws {
        // The nodes in pre-order, each with its parent's position (-1 for the root).
        var order: [(coordinator: Coordinator, parent: Int)] = []
        var pending: [(Coordinator, Int)] = [(root, -1)]
        while let (coordinator, parent) = pending.popLast() {
            let position = order.count
            order.append((coordinator, parent))
            for child in coordinator.children.reversed() { pending.append((child, position)) }
        }
        let base = stack.top
        do {
            try stack.reserve(8)
            try stack.pushNewTable(record: 5)                 // the root's table: what stays on the stack
            let result = stack.absoluteIndex(-1)
            try stack.pushNewTable(array: order.count)        // every node's table, by position + 1
            let nodes = stack.absoluteIndex(-1)
            try stack.pushNewTable(array: order.count)        // every node's children list, by position + 1
            let lists = stack.absoluteIndex(-1)
            for (position, (coordinator, parent)) in order.enumerated() {
                if position == 0 { stack.pushCopy(of: result) } else { try stack.pushNewTable(record: 5) }
                stack.pushString(coordinator.name)
                stack.setField("name", ofNewTableAt: -2)
                stack.pushInteger(coordinator.id)
                stack.setField("id", ofNewTableAt: -2)
                stack.pushString(coordinator.status.rawValue)
                stack.setField("status", ofNewTableAt: -2)
                try stack.pushList(coordinator.screens.map(\.name))
                stack.setField("screens", ofNewTableAt: -2)
                try stack.pushNewTable(array: coordinator.children.count)
                stack.pushCopy(of: -1)
                stack.setRawIndex(position + 1, ofTableAt: lists)
                stack.setField("children", ofNewTableAt: -2)
                if parent >= 0 {
                    stack.pushRawIndex(parent + 1, ofTableAt: lists) // the parent's children list
                    stack.pushCopy(of: -2)
                    stack.setRawIndex(stack.rawLength(at: -2) + 1, ofTableAt: -2)
                    stack.pop()
                }
                stack.setRawIndex(position + 1, ofTableAt: nodes)
                try stack.checkMemory()
            }
            stack.pop(2) // the two lists: the root's table stays
        } catch {
            stack.pop(stack.top - base) // out of memory part way: nothing stays
            throw error
        }
    }
}
