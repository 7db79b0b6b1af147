// The lower layers, re-exported: `import MetadataKit` gives users MediaError,
// MediaWarning, FileSource and the save layer's public types as before the
// split, and every file of this module sees their `package` declarations.
@_exported import MetadataKitBytes
@_exported import MetadataKitSaving
