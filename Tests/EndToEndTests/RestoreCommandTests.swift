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

    @Test func snapshotKeySignsTheSnapshotsTakenAndRestoresOnlyThoseItSigned() throws {
        let folder = try TemporaryDirectory()
        let key = try folder.write("key", bytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let otherKey = try folder.write("other", bytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let file = folder.path + "/shop.json"
        let taking = try Programs.run(["-i", "--snapshot-key", key, "examples/shop.lua"], input: """
            open("shop://catalog/shoes/42")
            io.open("\(file)", "w"):write(snapshot()):close()
            """)
        #expect(taking.status == 0, "\(taking.err)")
        let json = try #require(readFile(file))
        #expect(json.contains("\"signature\": \"hmac-sha256:"))

        let restoring = try Programs.run(["-i", "--snapshot-key", key, "--restore", file, "examples/shop.lua"], input: "=stack()\n")
        #expect(restoring.status == 0, "\(restoring.err)")
        #expect(restoring.out.contains("{ \"Categories\", \"Products\", \"Product\" }"))

        let forged = try folder.write("forged.json", json.replacingOccurrences(of: "shop://catalog/shoes/42", with: "shop://catalog/shoes/7"))
        for (snapshot, keyFile) in [(forged, key), (file, otherKey)] {
            let refused = try Programs.run(["--snapshot-key", keyFile, "--restore", snapshot, "examples/shop.lua"], input: "")
            #expect(refused.status == 1)
            #expect(refused.err == "coordrun: error: the snapshot's signature does not match its content: it was altered, or signed with another key\n")
        }
        let noKey = try Programs.run(["--snapshot-key", folder.path + "/missing", "examples/shop.lua"], input: "")
        #expect(noKey.status == 1)
        #expect(noKey.err.contains("cannot read the snapshot key \(folder.path)/missing"))
    }
}
