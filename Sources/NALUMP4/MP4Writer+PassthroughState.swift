public import NALU

/// What an ``MP4Writer`` keeps of one passthrough track: its sample tables and chunks
/// (progressive layouts) or the samples and data of the fragment being assembled.
struct PassthroughTrackState {
    var tables = SampleTableState()
    /// Chunks with their sample count and 1-based sample description index (8.7.4).
    var chunks: [(offset: Int64, samples: UInt32, description: UInt32)] = []
    /// Fragmented layout: the fragment's samples and bytes, and its decoding start time.
    var fragmentSamples: [(size: UInt32, duration: UInt32, offset: Int64, sync: Bool)] = []
    var fragmentData: [UInt8] = []
    var fragmentStartTime: UInt64 = 0
    var fragmentDescription: UInt32 = 1

    mutating func setLastChunkOffset(_ offset: Int64) {
        guard !chunks.isEmpty else { return }
        chunks[chunks.count - 1].offset = offset
    }

    /// Records the fragment's samples in the tables (for the summary) and empties it.
    mutating func endFragment() {
        for sample in fragmentSamples {
            tables.record(size: sample.size, duration: sample.duration, offset: sample.offset, isSync: sample.sync)
            fragmentStartTime += UInt64(sample.duration)
        }
        fragmentSamples.removeAll(keepingCapacity: true)
        fragmentData.removeAll(keepingCapacity: true)
    }
}

extension MP4Writer {
    /// Replaces passthrough track `index`'s edit list (``MP4PassthroughTrack/editList``): for a
    /// track whose length is known only once its samples are in (audio demultiplexed from a
    /// transport stream). It takes effect when `moov` is written: at ``finish()`` for the
    /// `moovAtEnd` and `faststart` layouts; a `fragmented` movie's `moov` is already out.
    public func setEditList(_ editList: [MP4EditListEntry]?, passthroughTrack index: Int) throws(NALUError) {
        guard configuration.passthroughTracks.indices.contains(index) else {
            throw NALUError(.invalidValue, field: "passthroughTrack", detail: "\(index); the writer has \(configuration.passthroughTracks.count)")
        }
        configuration.passthroughTracks[index].editList = editList
    }
}
