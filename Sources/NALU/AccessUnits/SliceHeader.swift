/// A slice header as ``AccessUnitSplitter`` parsed it: H.264 7.3.3 or H.265 7.3.6.1, up to the
/// fields the splitter and picture order count need. Handed on in
/// ``AccessUnitSplitter/Step/sliceHeader`` so nothing downstream parses it again.
public enum SliceHeader: Hashable, Sendable {
    case avc(AVCSliceHeader)
    case hevc(HEVCSliceSegmentHeader)
}
