public import NALU

extension PSIError {
    /// The fault in the one error model (Docs/errors.md): a PAT or PMT section whose field holds
    /// a value ISO/IEC 13818-1 does not allow, ``NALU/NALUError/Code/invalidValue``.
    public var code: NALUError.Code { .invalidValue }

    /// The same fault as a ``NALU/NALUError`` (its field and detail kept), for callers that
    /// handle one error type.
    public var naluError: NALUError { NALUError(code, field: field, detail: detail) }
}
