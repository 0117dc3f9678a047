import Testing
import NALU
import NALUMP4
@testable import NALUMedia

/// `ContainerSummary.disagreements`: which `colr`/`pasp` facts differ from the VUI.
@Suite struct ContainerColourNotesTests {
    @Test func paspAgainstVUI() throws {
        var signal = VideoSignalSummary()
        signal.sampleAspectRatio = Rational(4, 3)
        #expect(ContainerSummary.disagreements(colour: nil, pixelAspectRatio: MP4PixelAspectRatio(hSpacing: 8, vSpacing: 6), signal: signal) == [])
        #expect(ContainerSummary.disagreements(colour: nil, pixelAspectRatio: MP4PixelAspectRatio(hSpacing: 1, vSpacing: 1), signal: signal)
                == ["pasp 1:1 differs from the VUI's sample aspect ratio 4:3"])
        // No SAR in the VUI counts as 1:1; a zero spacing is ignored.
        #expect(ContainerSummary.disagreements(colour: nil, pixelAspectRatio: MP4PixelAspectRatio(hSpacing: 1, vSpacing: 1), signal: nil) == [])
        #expect(ContainerSummary.disagreements(colour: nil, pixelAspectRatio: MP4PixelAspectRatio(hSpacing: 0, vSpacing: 1), signal: nil) == [])
    }

    @Test func colrAgainstVUIWithoutColourDescription() {
        // A VUI without colour description is unspecified (2): an nclx with values is noted;
        // the range is compared only when the VUI codes it.
        let colour = MP4ColourInformation(colourType: "nclx", colourPrimaries: 1, transferCharacteristics: 2,
                                          matrixCoefficients: 1, fullRange: true)
        #expect(ContainerSummary.disagreements(colour: colour, pixelAspectRatio: nil, signal: nil) == [
            "colr colour_primaries 1 (bt709) differs from the VUI's 2 (unknown)",
            "colr matrix_coefficients 1 (bt709) differs from the VUI's 2 (unknown)",
        ])
        #expect(ContainerSummary.disagreements(colour: MP4ColourInformation(colourType: "prof"), pixelAspectRatio: nil, signal: nil) == [])
    }
}
