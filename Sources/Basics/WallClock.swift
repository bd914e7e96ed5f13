import FoundationEssentials

/// The one wall clock of the application: seconds since 1970 (UTC) with a fraction, the unit the stores
/// keep times in. Durations are measured with `ContinuousClock`, never with this.
public enum WallClock {
    public static func now() -> Double { Date().timeIntervalSince1970 }
}
