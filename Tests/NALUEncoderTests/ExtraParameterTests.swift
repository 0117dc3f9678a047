import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// `EncoderConfiguration.extraParameters` (issue 17) reach x264_param_parse / x265_param_parse in
/// the factories' `validate`, so an unknown name or bad value fails before any frame.
@Suite struct ExtraParameterTests {
    @Test func parsesTheColonList() throws {
        #expect(try EncoderParameter.list("keyint=10:bframes=0::no-scenecut", context: "x") == [
            EncoderParameter(name: "keyint", value: "10"), EncoderParameter(name: "bframes", value: "0"),
            EncoderParameter(name: "no-scenecut", value: "true"),
        ])
        #expect(throws: EncoderError(.invalidConfiguration, context: "x", detail: "\"=3\" has no option name; expected k=v:k=v")) {
            try EncoderParameter.list("a=1:=3", context: "x")
        }
    }

    @Test func librariesNameTheBadSetting() throws {
        var h264 = EncoderConfiguration(codec: .h264, width: 160, height: 96)
        h264.extraParameters = [EncoderParameter(name: "keyint", value: "10"), EncoderParameter(name: "nosuch", value: "1")]
        let x264 = #expect(throws: EncoderError.self) { try X264BackendFactory().validate(h264) }
        #expect(x264?.context == "x264-params")
        #expect(x264?.detail == "unknown option \"nosuch\"")
        var hevc = EncoderConfiguration(codec: .hevc, width: 160, height: 96)
        hevc.preset = "ultrafast"
        hevc.extraParameters = [EncoderParameter(name: "bframes", value: "many")]
        let x265 = #expect(throws: EncoderError.self) { try X265BackendFactory().validate(hevc) }
        #expect(x265?.context == "x265-params")
        #expect(x265?.detail == "bad value \"many\" for \"bframes\"")
        hevc.extraParameters = [EncoderParameter(name: "bframes", value: "0")]
        try X265BackendFactory().validate(hevc)
    }
}
