import Testing

@testable import HeritageApp

/// The register map's arithmetic beside the server tests (`SiteRegisterMapTests`): the box read from the
/// query, the grid a truncated area is sampled over, and how the cap is shared among its cells.
struct SiteRegisterMapUnitTests {
    @Test func site06BoxesOfTheQuery() {
        #expect(
            SiteRegisterMap.area("-1.5, 50,2,52.25")
                == [SiteSearchArea.Box(minLongitude: -1.5, maxLongitude: 2, minLatitude: 50, maxLatitude: 52.25)])
        #expect(
            SiteRegisterMap.area("170,-10,-170,10")
                == [
                    SiteSearchArea.Box(minLongitude: 170, maxLongitude: 180, minLatitude: -10, maxLatitude: 10),
                    SiteSearchArea.Box(minLongitude: -180, maxLongitude: -170, minLatitude: -10, maxLatitude: 10),
                ])
        for bad in [nil, "", "1,2,3", "1,2,3,4,5", "NaN,0,1,1", "0,0,Infinity,1", "0,5,1,4", "0,0,1,-90.1", "a,b,c,d"] {
            #expect(SiteRegisterMap.area(bad) == nil, "\(bad ?? "nil")")
        }
    }

    @Test func site06GridCellsTileTheBoxWithoutOverlap() {
        let box = SiteSearchArea.Box(minLongitude: 0, maxLongitude: 4, minLatitude: 10, maxLatitude: 12)
        let cells = SiteRegisterMap.grid(box)
        #expect(cells.count == SiteRegisterMap.gridSide * SiteRegisterMap.gridSide)
        // Each point, edges included, lies in exactly one cell.
        for (longitude, latitude) in [(0.0, 10.0), (1.0, 10.5), (4.0, 12.0), (2.0, 11.0), (3.999, 10.0)] {
            let holding = cells.filter {
                ($0.minLongitude...$0.maxLongitude).contains(longitude)
                    && ($0.minLatitude...$0.maxLatitude).contains(latitude)
            }
            #expect(holding.count == 1, "\(longitude), \(latitude)")
        }
    }

    @Test func site06TheCapIsSharedAsEvenlyAsTheCellsAllow() {
        #expect(SiteRegisterMap.shares(of: 100, among: [10, 500, 0, 500]) == [10, 45, 0, 45])
        #expect(SiteRegisterMap.shares(of: 100, among: [10, 20, 30]) == [10, 20, 30])
        #expect(SiteRegisterMap.shares(of: 5, among: [100, 100, 100]).reduce(0, +) == 5)
        #expect(SiteRegisterMap.shares(of: 5_000, among: Array(repeating: 5_000, count: 16)).reduce(0, +) == 5_000)
    }
}
