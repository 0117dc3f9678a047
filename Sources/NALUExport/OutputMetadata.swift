public import NALU
public import NALUMP4
public import NALUMedia

/// The movie metadata an MP4/MOV output gets: the input's (``MediaSource/movieMetadata()``:
/// rotation, creation time, user data) when it is MP4/MOV, and the QuickTime brand when the
/// output's name ends in `.mov`; `nil` when there is neither.
public func outputMetadata(from source: MediaSource?, output: String) throws(NALUError) -> MP4MovieMetadata? {
    // Metadata is informative: a movie whose other boxes do not parse still converts.
    outputMetadata((try? source?.movieMetadata()) ?? nil, output: output)
}

/// `metadata` (a source's) for `output`: QuickTime (`qt  ` brand) when it is named `.mov`.
public func outputMetadata(_ metadata: MP4MovieMetadata?, output: String) -> MP4MovieMetadata? {
    var metadata = metadata
    let quickTime = output.lowercased().hasSuffix(".mov")
    if quickTime { metadata = metadata ?? MP4MovieMetadata() }
    metadata?.quickTime = quickTime
    return metadata
}
