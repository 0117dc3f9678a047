// thumbnail-sample IN SECONDS OUT.png: the picture shown at SECONDS (edit lists applied) as a
// PNG at its display size, rotated upright — AVAssetImageGenerator in nalu.
import Foundation
import NALUExport

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, let seconds = Double(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: thumbnail-sample IN SECONDS OUT.png\n".utf8))
    exit(64)
}
do {
    let image = try ImageGenerator(path: arguments[0]).image(at: seconds)
    try image.writePNG(to: arguments[2])
    print("\(arguments[2]): \(image.width)x\(image.height)")
} catch {
    FileHandle.standardError.write(Data("thumbnail-sample: error: \(error)\n".utf8))
    exit(1)
}
