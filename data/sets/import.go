package sets

// ImportVersion names the importer's output.
const ImportVersion = "kepler-import-1"
