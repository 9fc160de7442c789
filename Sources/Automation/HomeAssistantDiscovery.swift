import Plumbing

/// Home Assistant's MQTT discovery for one receiver: a `device_tracker` whose state, JSON
/// attributes and availability are gpsbridge's topics, published retained under
/// `homeassistant/device_tracker/OBJECT/config` so Home Assistant finds it by itself.
package struct HomeAssistantDiscovery: Sendable {
  package static let prefix = "homeassistant"
  package let topics: TrackerTopics
  /// The box's name (its host name): one Home Assistant device per box and receiver.
  package let node: String
  package let version: String

  /// A unique id: letters, digits, `_` and `-` only.
  package var objectID: String {
    "gpsbridge_" + TrackerTopics.topicName(node) + "_" + TrackerTopics.topicName(String(topics.prefix.map { $0 == "/" ? "_" : $0 }))
      + "_" + topics.device
  }

  package var topic: String { "\(Self.prefix)/device_tracker/\(objectID)/config" }

  package var message: MQTTClient.Message {
    var writer = JSONWriter(capacity: 768)
    writer.beginObject()
    writer.field("name", "\(topics.device) on \(node)")
    writer.field("unique_id", objectID)
    writer.field("state_topic", topics.state)
    writer.field("json_attributes_topic", topics.attributes)
    writer.field("availability_topic", topics.availability)
    writer.field("payload_available", "online")
    writer.field("payload_not_available", "offline")
    writer.field("payload_home", "home")
    writer.field("payload_not_home", "not_home")
    writer.field("source_type", "gps")
    writer.object("device") { device in
      device.beginArray("identifiers")
      device.element(objectID)
      device.endArray()
      device.field("name", "gpsbridge \(topics.device) on \(node)")
      device.field("manufacturer", "gpsbridge")
      device.field("sw_version", version)
    }
    writer.endObject()
    return MQTTClient.Message(topic: topic, payload: writer.string, qos: 1, retain: true)
  }
}
