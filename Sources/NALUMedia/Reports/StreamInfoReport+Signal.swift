import NALU

/// How `nalu info` prints the VUI and SEI facts: ffprobe's key names and value spellings for
/// what ffprobe reports (`color_range`, `color_primaries`, `color_transfer`, `color_space`,
/// `sample_aspect_ratio`, `display_aspect_ratio`, `field_order`, and its frame side data names
/// for mastering display and content light level), left out when unspecified, as ffprobe does.
extension StreamSummary {
    /// The ffprobe-compatible top-level members.
    func signalJSON() -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let signal {
            if let range = signal.colorRange { members.append(("color_range", .string(range))) }
            if let space = signal.colorSpace { members.append(("color_space", .string(space))) }
            if let transfer = signal.colorTransfer { members.append(("color_transfer", .string(transfer))) }
            if let primaries = signal.colorPrimaries { members.append(("color_primaries", .string(primaries))) }
            if let sar = signal.sampleAspectRatio?.reduced {
                members.append(("sample_aspect_ratio", .string("\(sar.numerator):\(sar.denominator)")))
                if let dar = displayAspectRatio(sar) { members.append(("display_aspect_ratio", .string(dar))) }
            }
        }
        if let fieldOrder { members.append(("field_order", .string(fieldOrder))) }
        if let signal { members.append(("vui", vuiJSON(signal, codec: codec))) }
        members.append(("sei", seiJSON))
        return members
    }

    /// `width·sar_num : height·sar_den`, reduced, as ffprobe prints `display_aspect_ratio`.
    func displayAspectRatio(_ sar: Rational) -> String? {
        guard let description, description.width > 0, description.height > 0 else { return nil }
        let (num, o1) = Int64(description.width).multipliedReportingOverflow(by: sar.numerator)
        let (den, o2) = Int64(description.height).multipliedReportingOverflow(by: sar.denominator)
        guard !o1, !o2, num > 0, den > 0 else { return nil }
        let dar = Rational(num, den).reduced
        return "\(dar.numerator):\(dar.denominator)"
    }

}

/// The VUI facts of an SPS as `nalu info --json` and `nalu nals --json` print them.
func vuiJSON(_ signal: VideoSignalSummary, codec: Codec) -> JSONValue {
    var members: [(String, JSONValue)] = [("present", .bool(signal.vuiPresent))]
    if signal.videoSignalTypePresent { members.append(("video_format", .number(signal.videoFormat))) }
    members += [
        ("colour_primaries", .number(signal.colourPrimaries)),
        ("transfer_characteristics", .number(signal.transferCharacteristics)),
        ("matrix_coefficients", .number(signal.matrixCoefficients)),
        ("video_full_range_flag", .bool(signal.videoFullRange)),
    ]
    if let location = signal.chromaSampleLocType { members.append(("chroma_sample_loc_type", .number(location))) }
    members.append(("num_units_in_tick", signal.numUnitsInTick.map { .number($0) } ?? .null))
    members.append(("time_scale", signal.timeScale.map { .number($0) } ?? .null))
    if codec == .h264 { members.append(("fixed_frame_rate", signal.fixedFrameRate.map { .bool($0) } ?? .null)) }
    members.append(("max_num_reorder_frames", signal.maxNumReorderFrames.map { .number($0) } ?? .null))
    members.append(("max_dec_frame_buffering", signal.maxDecFrameBuffering.map { .number($0) } ?? .null))
    members.append(("hrd", .array(signal.hrd.map { hrd in
        .object([("type", .string(hrd.kind)), ("bit_rate", .number(Int64(clamping: hrd.bitRate))),
                 ("cpb_size", .number(Int64(clamping: hrd.cpbSize))), ("cbr", .bool(hrd.cbr))])
    })))
    return .object(members)
}

extension StreamSummary {
    private var seiJSON: JSONValue {
        var members: [(String, JSONValue)] = [("nal_units", .number(sei.nalUnits))]
        members.append(("payload_type_counts", .object(sei.payloadTypeCounts.sorted { $0.key < $1.key }
            .map { (String($0.key), .number($0.value)) })))
        if let display = sei.masteringDisplay {
            // ffprobe's order: red, green, blue (c = 2, 0, 1), then the white point and luminances.
            var fields: [(String, JSONValue)] = []
            for (name, c) in [("red", 2), ("green", 0), ("blue", 1)] {
                fields.append(("\(name)_x", .string("\(display.displayPrimariesX[c])/50000")))
                fields.append(("\(name)_y", .string("\(display.displayPrimariesY[c])/50000")))
            }
            fields += [
                ("white_point_x", .string("\(display.whitePointX)/50000")),
                ("white_point_y", .string("\(display.whitePointY)/50000")),
                ("min_luminance", .string("\(display.minDisplayMasteringLuminance)/10000")),
                ("max_luminance", .string("\(display.maxDisplayMasteringLuminance)/10000")),
            ]
            members.append(("mastering_display", .object(fields)))
        }
        if let light = sei.contentLightLevel {
            members.append(("content_light_level", .object([("max_content", .number(light.maxContentLightLevel)),
                                                            ("max_average", .number(light.maxPicAverageLightLevel))])))
        }
        if let count = sei.recoveryPointCount {
            members.append(("recovery_point", .object([
                (codec == .h264 ? "recovery_frame_cnt" : "recovery_poc_cnt", .number(count)),
                ("messages", .number(sei.recoveryPoints)),
            ])))
        }
        if let data = sei.userData, let text = data.text(maxLength: SEISummary.userDataTextLimit) {
            members.append(("user_data_unregistered", .object([("uuid", .string(data.uuidString)), ("text", .string(text))])))
        }
        if let error = sei.firstError { members.append(("error", .string("\(error)"))) }
        return .object(members)
    }

    /// The text lines.
    func signalLines() -> [(String, String)] {
        var lines: [(String, String)] = []
        if let signal {
            let colour = [signal.colorRange.map { "range \($0)" }, signal.colorPrimaries.map { "primaries \($0)" },
                          signal.colorTransfer.map { "transfer \($0)" }, signal.colorSpace.map { "matrix \($0)" }].compactMap { $0 }
            lines.append(("colour", colour.isEmpty ? "unspecified" : colour.joined(separator: ", ")))
            if let sar = signal.sampleAspectRatio?.reduced {
                lines.append(("aspect", "SAR \(sar.numerator):\(sar.denominator)" + (displayAspectRatio(sar).map { ", DAR \($0)" } ?? "")))
            }
            if let units = signal.numUnitsInTick, let scale = signal.timeScale {
                lines.append(("VUI timing", "num_units_in_tick \(units), time_scale \(scale)"
                              + (signal.fixedFrameRate.map { $0 ? ", fixed frame rate" : "" } ?? "")))
            }
            if let reorder = signal.maxNumReorderFrames, let buffering = signal.maxDecFrameBuffering {
                lines.append(("reordering", "max_num_reorder_frames \(reorder), max_dec_frame_buffering \(buffering)"))
            }
            for hrd in signal.hrd {
                lines.append(("HRD", "\(hrd.kind): \(hrd.bitRate) bit/s, CPB \(hrd.cpbSize) bits" + (hrd.cbr ? ", CBR" : "")))
            }
        }
        if let fieldOrder { lines.append(("field order", fieldOrder)) }
        if let display = sei.masteringDisplay {
            let x = display.displayPrimariesX, y = display.displayPrimariesY
            lines.append(("mastering", "R(\(x[2]),\(y[2])) G(\(x[0]),\(y[0])) B(\(x[1]),\(y[1])) WP(\(display.whitePointX),\(display.whitePointY))"
                          + " L(\(display.maxDisplayMasteringLuminance),\(display.minDisplayMasteringLuminance))"))
        }
        if let light = sei.contentLightLevel {
            lines.append(("light level", "MaxCLL \(light.maxContentLightLevel), MaxFALL \(light.maxPicAverageLightLevel) cd/m²"))
        }
        if let count = sei.recoveryPointCount {
            lines.append(("recovery", "\(sei.recoveryPoints) recovery point SEI, first count \(count)"))
        }
        if let text = sei.userData?.text(maxLength: 72) { lines.append(("encoder", text)) }
        if let error = sei.firstError { lines.append(("SEI error", "\(error)")) }
        return lines
    }
}

/// How `nalu info` prints an MP4 sample entry's `colr` and `pasp` boxes.
extension ContainerSummary {
    var colourBoxesJSON: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let colour {
            var fields: [(String, JSONValue)] = [("colour_type", .string(colour.colourType))]
            if let value = colour.colourPrimaries {
                fields.append(("colour_primaries", .number(value)))
                if let name = ColourNames.printed(ColourNames.primaries(value)) { fields.append(("color_primaries", .string(name))) }
            }
            if let value = colour.transferCharacteristics {
                fields.append(("transfer_characteristics", .number(value)))
                if let name = ColourNames.printed(ColourNames.transfer(value)) { fields.append(("color_transfer", .string(name))) }
            }
            if let value = colour.matrixCoefficients {
                fields.append(("matrix_coefficients", .number(value)))
                if let name = ColourNames.printed(ColourNames.space(value)) { fields.append(("color_space", .string(name))) }
            }
            if let full = colour.fullRange { fields.append(("color_range", .string(ColourNames.range(fullRange: full)))) }
            members.append(("colr", .object(fields)))
        }
        if let pasp = pixelAspectRatio { members.append(("pasp", .string("\(pasp.hSpacing):\(pasp.vSpacing)"))) }
        if !notes.isEmpty { members.append(("notes", .array(notes.map { .string($0) }))) }
        return members
    }

    var colourBoxesLines: [(String, String)] {
        var lines: [(String, String)] = []
        if let colour {
            let values = [colour.colourPrimaries, colour.transferCharacteristics, colour.matrixCoefficients].compactMap { $0 }
            var text = colour.colourType + (values.isEmpty ? "" : " " + values.map(String.init).joined(separator: "/"))
            if let full = colour.fullRange { text += ", " + ColourNames.range(fullRange: full) }
            lines.append(("colr", text))
        }
        if let pasp = pixelAspectRatio { lines.append(("pasp", "\(pasp.hSpacing):\(pasp.vSpacing)")) }
        for note in notes { lines.append(("note", note)) }
        return lines
    }
}
