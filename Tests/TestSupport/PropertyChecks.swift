import Testing
import PropertyBased

/// `propertyCheck` whose body's thrown errors fail the test, with the input that threw: swift-property-based
/// counts the issues a body records, and drops an error it throws.
public func checkProperty<Input, Value>(
    count: Int = 100,
    input: Generator<Value, some Sequence<Input>>,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    perform body: (Value) async throws -> Void
) async {
    await propertyCheck(count: count, input: input, perform: { value in
        do { try await body(value) } catch {
            Issue.record(error, "with the input \(value)", sourceLocation: sourceLocation)
        }
    }, isolation: isolation, sourceLocation: sourceLocation)
}
