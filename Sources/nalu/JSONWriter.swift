import NALUMedia

/// The reports' JSON value (``NALUMedia/JSONValue``), under the name the commands use.
typealias JSON = JSONValue
