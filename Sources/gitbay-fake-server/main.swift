import GitbayFake
print("fake")
