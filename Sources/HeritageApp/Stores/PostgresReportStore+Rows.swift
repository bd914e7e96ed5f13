import PostgresStorage

// How the outbox's records read from a row of the PostgreSQL store's queries: the same columns
// (`OutboxReport.columns`, `OutboxPhoto.columns`) and accessors as the SQLite store's rows.

extension OutboxReport {
    init(row: PostgresRow) throws {
        id = try row.int("id") ?? 0
        userID = try row.int("user_id") ?? 0
        localID = try row.string("local_id") ?? ""
        platformReportID = try row.string("platform_report_id")
        // An unknown state (a newer schema) is treated as one the worker leaves alone.
        state = ReportState(rawValue: try row.string("state") ?? "") ?? .held
        name = try row.string("name")
        designation = try row.string("designation")
        condition = try row.string("condition")
        occupancy = try row.string("occupancy")
        priorityCategory = try row.string("priority_category")
        ownerType = try row.string("owner_type")
        grade = try row.string("grade")
        latitude = try row.double("latitude")
        longitude = try row.double("longitude")
        accuracy = try row.double("accuracy")
        altitude = try row.double("altitude")
        attempts = Int(try row.int("attempts") ?? 0)
        nextAttemptAt = try row.double("next_attempt_at")
        lastError = try row.string("last_error")
        createAttemptedAt = try row.double("create_attempted_at")
        isAnonymous = try row.string("origin") == ReportOrigin.kiosk.rawValue
        let reviewState = try row.string("review_state") ?? ""
        let discardedAt = try row.double("discarded_at")
        isStoppedByReview = reviewState == "rejected" || reviewState == "duplicate" || discardedAt != nil
        withdrawAfter = try row.double("withdraw_after")
    }
}

extension OutboxPhoto {
    init(row: PostgresRow) throws {
        id = try row.int("id") ?? 0
        localID = try row.string("local_id") ?? ""
        position = Int(try row.int("position") ?? 0)
        contentType = try row.string("content_type") ?? "image/jpeg"
        size = Int(try row.int("size") ?? 0)
        sha256 = (try row.string("sha256") ?? "").lowercased()
        latitude = try row.double("latitude")
        longitude = try row.double("longitude")
        accuracy = try row.double("accuracy")
        altitude = try row.double("altitude")
        capturedAt = try row.string("captured_at")
        state = State(rawValue: try row.string("state") ?? "") ?? .pending
        platformPhotoID = try row.string("platform_photo_id")
    }
}
