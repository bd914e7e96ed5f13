import HeritageApp
print("har")
