import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun --restore`: a snapshot taken in one process restores in another.
@Suite struct RestoreCommandTests {
    @Test func aSnapshotThreeDeepInATabWithAModalRestoresInANewProcess() throws {
        let folder = try TemporaryDirectory()
        let file = folder.path + "/shop.json"
        // Three deep in the Catalog tab, a product added (the Cart tab's badge), then the checkout modal.
        let taking = try Programs.run(["-i", "examples/shop.lua"], input: """
            open("shop://catalog/shoes/42")
            tap("add")
            tap("buy")
            io.open("\(file)", "w"):write(snapshot()):close()
            """)
        #expect(taking.status == 0, "\(taking.err)")
        let json = try String(contentsOfFile: file, encoding: .utf8)
        let document = try FlowValue(json: json)
        #expect(document["format"] == 1)
        #expect(document["window"]?["modals"]?[0]?["stack"]?[0]?["type"] == "Checkout")
        #expect(document["window"]?["root"]?["tabs"]?[1]?["badge"] == 1)
        #expect(document["coordinators"]?.listValue?.map { $0["class"]?.stringValue ?? "" } == ["Shop", "Catalog", "Cart", "Profile", "Checkout"])
        #expect(document["coordinators"]?[1]?["data"] == ["category": "shoes", "product": "42"])

        // Another process restores it: the same hierarchy and inputs, and every screen's outputs work.
        let restoring = try Programs.run(["-i", "--restore", file, "examples/shop.lua"], input: """
            =stack()
            io.write(snapshot() == io.open("\(file)"):read("a") and "same\\n" or "different\\n")
            tap("pay")
            tap("done")
            =stack()
            tab("Cart")
            =#top().items
            tab("Catalog")
            back()
            tap("open", top().products[2])
            =top().product.name
            """)
        #expect(restoring.status == 0, "\(restoring.err)")
        #expect(restoring.out.contains("> =stack()\n{ \"Categories\", \"Products\", \"Product\", \"Checkout\" }\n"))
        #expect(restoring.out.contains("same\n"))
        #expect(restoring.out.contains("{ \"Categories\", \"Products\", \"Product\" }\n")) // paid: the modal went
        #expect(restoring.out.contains("> =#top().items\n0\n")) // the cart emptied by the restored Shop's handler
        #expect(restoring.out.contains("> =top().product.name\nCity sneaker\n"))
    }
}
