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
    config(topic: topic, name: "\(topics.device) on \(node)", id: objectID, state: topics.state, attributes: topics.attributes) { writer in
      writer.field("payload_home", "home")
      writer.field("payload_not_home", "not_home")
      writer.field("source_type", "gps")
    } device: { device in
      device.field("name", "gpsbridge \(topics.device) on \(node)")
      device.field("manufacturer", "gpsbridge")
      device.field("sw_version", version)
    }
  }

  /// The receiver's "interference" `binary_sensor` (device class `problem`): `ON` while it is
  /// spoofed (by its word or gpsbridge's rules), critically jammed, or its antenna short, with
  /// the states as attributes; on the same Home Assistant device as the tracker.
  package var interference: MQTTClient.Message {
    let id = objectID + "_interference"
    return config(
      topic: "\(Self.prefix)/binary_sensor/\(id)/config", name: "\(topics.device) interference on \(node)", id: id,
      state: topics.interference, attributes: topics.interferenceAttributes
    ) { writer in
      writer.field("device_class", "problem")
      writer.field("payload_on", "ON")
      writer.field("payload_off", "OFF")
    } device: { _ in
    }
  }

  /// A discovery config, retained: the entity's name and id, its state and attributes topics,
  /// the box's availability, its own fields, and its device (this receiver on this box).
  private func config(
    topic: String, name: String, id: String, state: String, attributes: String, fields: (inout JSONWriter) -> Void,
    device deviceFields: (inout JSONWriter) -> Void
  ) -> MQTTClient.Message {
    var writer = JSONWriter(capacity: 768)
    writer.beginObject()
    writer.field("name", name)
    writer.field("unique_id", id)
    writer.field("state_topic", state)
    writer.field("json_attributes_topic", attributes)
    writer.field("availability_topic", topics.availability)
    writer.field("payload_available", "online")
    writer.field("payload_not_available", "offline")
    fields(&writer)
    writer.object("device") { device in
      device.beginArray("identifiers")
      device.element(objectID)
      device.endArray()
      deviceFields(&device)
    }
    writer.endObject()
    return MQTTClient.Message(topic: topic, payload: writer.string, qos: 1, retain: true)
  }
}
