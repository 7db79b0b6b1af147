import MetadataKitBytes

extension FileEditor {
    /// `body`'s result, computed on a thread of `lane` (``BlockingWork/saves``
    /// unless given), carrying this layer's task-local settings
    /// (``insertsBlocks``, ``isFolderWritable``, set by tests) to that
    /// thread: a thread outside the task doesn't see them.
    package static func runBlocking<Value: Sendable, Failure: Error>(
        on lane: BlockingWork.Lane = BlockingWork.saves,
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let inserts = insertsBlocks
        let writable = isFolderWritable
        let result = await lane.run { () -> Result<Value, Failure> in
            $insertsBlocks.withValue(inserts) {
                $isFolderWritable.withValue(writable) { Result(catching: body) }
            }
        }
        return try result.get()
    }
}
