import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

extension LocalPlatform {
    /// `GET har/report`: the caller's reports that are not deleted, with their photos.
    func listReports(_ request: Request) throws(Refusal) -> Response {
        let caller = try authenticate(request, body: .none, needsSession: true)
        let owner = caller.session?.accountID ?? ""
        let records = try stored { try store.reports(ownerID: owner) }
        var listed: [PlatformReport] = []
        for record in records {
            let photos = try stored { try store.photos(reportID: record.id) }
            listed.append(Self.platformReport(record, photos: photos))
        }
        return try json(listed)
    }

    /// `POST har/report`.
    func createReport(_ request: Request) throws(Refusal) -> Response {
        let caller = try authenticate(request, body: .json, needsSession: true)
        let report = try Self.parseNewReport(request.body)
        let fingerprint = SHA256Stream.hash(Array(Signature.signedPath(request.rawPath).utf8) + request.body)
        return try idempotent(request, caller: caller, fingerprint: fingerprint) { () throws(Refusal) -> Response in
            let time = now()
            let record = ReportRecord(
                id: Self.newID(), ownerID: caller.session?.accountID ?? "", report: report,
                creationTime: time, updateTime: time, deletedTime: nil)
            try stored { try store.insertReport(record) }
            return try json(CreatedReport(reportID: record.id, objectStatus: "active", creationTime: time))
        }
    }

    /// `DELETE har/report/{id}`: a soft delete.
    func deleteReport(_ request: Request, id: String) throws(Refusal) -> Response {
        let caller = try authenticate(request, body: .none, needsSession: true)
        _ = try ownedReport(id: id, caller: caller)
        try stored { try store.markReportDeleted(id: id, at: now()) }
        return try json(["report_id": id, "object_status": "deleted"])
    }

    /// A live report of the caller: unknown or deleted → 404, someone else's → 403.
    func ownedReport(id: String, caller: Caller) throws(Refusal) -> ReportRecord {
        guard let record = try stored({ try store.report(id: id) }), record.deletedTime == nil else {
            throw .noSuchReport
        }
        guard record.ownerID == caller.session?.accountID else { throw .notOwner }
        return record
    }

    static func parseNewReport(_ body: [UInt8]) throws(Refusal) -> NewReport {
        let fields = JSONFields(object: try JSONValue.object(from: body))
        try fields.refuseUnknown(allowed: [
            "condition", "designation", "grade", "occupancy", "owner_type", "place_name", "priority_category",
            "location", "is_anonymous",
        ])
        let placeName = try fields.requiredString("place_name")
        guard !placeName.isEmpty, placeName.count <= 500 else {
            throw .invalidArgument("field place_name must have 1 to 500 characters")
        }
        var location: Location?
        if let object = try fields.optionalObject("location") {
            try object.refuseUnknown(allowed: ["latitude", "longitude", "accuracy", "altitude"])
            location = Location(
                latitude: try object.requiredNumber("latitude", in: -90...90),
                longitude: try object.requiredNumber("longitude", in: -180...180),
                accuracy: try object.optionalNumber("accuracy", in: 0...1e7),
                altitude: try object.optionalNumber("altitude", in: -1e5...1e5))
        }
        return NewReport(
            condition: try fields.code("condition", Condition.self),
            designation: try fields.code("designation", Designation.self),
            grade: try fields.code("grade", Grade.self),
            occupancy: try fields.code("occupancy", Occupancy.self),
            ownerType: try fields.code("owner_type", OwnerType.self),
            placeName: placeName,
            priorityCategory: try fields.code("priority_category", PriorityCategory.self),
            location: location, isAnonymous: try fields.optionalBool("is_anonymous"))
    }

    static func platformReport(_ record: ReportRecord, photos: [PhotoRecord]) -> PlatformReport {
        var report = PlatformReport(reportID: record.id, creationTime: record.creationTime)
        let new = record.report
        report.name = new.placeName
        report.formattedAddress = new.location?.formattedCoordinates
        report.updateTime = record.updateTime
        report.condition = new.condition.rawValue
        report.designation = new.designation.rawValue
        report.grade = new.grade.rawValue
        report.occupancy = new.occupancy.rawValue
        report.ownerType = new.ownerType.rawValue
        report.priorityCategory = new.priorityCategory.rawValue
        report.isAddressEdited = false
        report.isAnonymous = new.isAnonymous ?? false
        report.isLocationEdited = false
        report.location = new.location
        report.photos = photos.map {
            PlatformPhoto(
                photoID: $0.id, creationTime: $0.creationTime, latitude: $0.latitude, longitude: $0.longitude,
                accuracy: $0.accuracy, altitude: $0.altitude, capturedAt: $0.capturedAt, size: $0.size,
                sha256: $0.sha256)
        }
        return report
    }
}
