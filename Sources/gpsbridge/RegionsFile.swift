import FoundationEssentials
import GPSLocation

struct RegionFileError: Error, CustomStringConvertible {
  var description: String
}

/// A JSON array of regions, as `Region`'s Codable form.
func readRegions(_ path: String) throws -> [Region] {
  guard let data = FileManager.default.contents(atPath: path) else {
    throw RegionFileError(description: "Cannot read the regions file \(path).")
  }
  do {
    return try JSONDecoder().decode([Region].self, from: data)
  } catch {
    throw RegionFileError(
      description:
        "\(path) is not a JSON array of regions like [{\"identifier\": \"home\", \"center\": {\"latitude\": 47.3769, \"longitude\": 8.5417}, \"radius\": 100}]: \(error)"
    )
  }
}
