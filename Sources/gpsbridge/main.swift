print("gpsbridge")
