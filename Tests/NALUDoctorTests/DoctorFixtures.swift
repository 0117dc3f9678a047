import Foundation

/// The real fixtures (Tests/Fixtures, made by Scripts/*.sh).
enum DoctorFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
