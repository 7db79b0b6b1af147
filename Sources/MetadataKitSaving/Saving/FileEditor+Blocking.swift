import MetadataKitBytes

extension FileEditor {
    /// ``BlockingWork/run(_:)`` carrying this layer's task-local settings
    /// (``insertsBlocks``, ``isFolderWritable``, set by tests) to the thread
    /// that runs `body`: a thread outside the task doesn't see them.
    package static func runBlocking<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let inserts = insertsBlocks
        let writable = isFolderWritable
        let result = await BlockingWork.run { () -> Result<Value, Failure> in
            $insertsBlocks.withValue(inserts) {
                $isFolderWritable.withValue(writable) { Result(catching: body) }
            }
        }
        return try result.get()
    }
}
